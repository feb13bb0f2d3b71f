// Parsed schedule files kept between reloads, by path and stat signature (size, mtime,
// inode): a reload re-reads only files that changed, so editing one file of a hundred costs
// that file, and the schedules of the others stay the very same objects.
import type { FieldProblem } from "../../util/errors.js";
import type { Schedule } from "./schedule-file.js";

interface Entry {
  signature: string;
  schedules: Schedule[];
  problems: FieldProblem[];
  /** Passed every per-schedule check with no warning: the next reload need not ask again. */
  clean: boolean;
  /** Parsed by this load, not yet judged clean or not. */
  fresh: boolean;
}

export class ScheduleFileCache {
  private readonly entries = new Map<string, Entry>();

  /** The parse of `path` if it has not changed since it was stored. */
  get(path: string, signature: string): Entry | undefined {
    const entry = this.entries.get(path);
    return entry?.signature === signature ? entry : undefined;
  }

  set(path: string, signature: string, schedules: Schedule[], problems: FieldProblem[]): void {
    this.entries.set(path, { signature, schedules, problems, clean: false, fresh: true });
  }

  /** Forgets files no longer in the folder. */
  retain(paths: ReadonlySet<string>): void {
    for (const path of this.entries.keys()) if (!paths.has(path)) this.entries.delete(path);
  }

  /**
   * Judges the files after a load checked them: clean when they had no problem or warning
   * (`dirty`: display names of files with any). A file that is not clean has its own checks
   * run again on every load, so it is judged again each time.
   */
  markClean(dirty: ReadonlySet<string>): void {
    for (const entry of this.entries.values()) {
      const file = entry.schedules[0]?.file;
      // Every file, read anew or not: a check across files may now fail in an unchanged one
      // (an `after` whose target went away), and one that failed may pass (it is checked
      // whole on every load until it does).
      entry.clean = entry.problems.length === 0 && (file === undefined || !dirty.has(file));
      entry.fresh = false;
    }
  }

  /** Display names of unchanged files that were checked clean: their schedules need no new look. */
  cleanFiles(): Set<string> {
    const files = new Set<string>();
    for (const entry of this.entries.values()) {
      const file = entry.schedules[0]?.file;
      if (entry.clean && !entry.fresh && file !== undefined) files.add(file);
    }
    return files;
  }
}
