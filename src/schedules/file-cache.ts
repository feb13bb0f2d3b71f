// Parsed schedule files kept between reloads, by path and stat signature (size, mtime,
// inode): a reload re-reads only files that changed, so editing one file of a hundred costs
// that file, and the schedules of the others stay the very same objects.
import { statSync } from "node:fs";
import type { FieldProblem } from "../util/errors.js";
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

  /** The stat signature of `path`, or undefined when it cannot be read. */
  static signature(path: string): string | undefined {
    try {
      const s = statSync(path);
      return `${s.size}:${s.mtimeMs}:${s.ino}:${s.ctimeMs}`;
    } catch {
      return undefined;
    }
  }

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
   * Judges the files parsed by this load: clean when they passed their own checks with no
   * problem or warning (`dirty`: display names of files with any). Files read from the cache
   * keep their judgement; a file with problems is never clean, so it is checked every time.
   */
  markClean(dirty: ReadonlySet<string>): void {
    for (const entry of this.entries.values()) {
      if (!entry.fresh) continue;
      const file = entry.schedules[0]?.file;
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
