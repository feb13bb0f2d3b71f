// The folder of schedule files: every *.toml in schedules_dir read and parsed in name order,
// unchanged files taken from the cache, one step per file (and per hundred entries).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FieldProblem } from "../../util/errors.js";
import { fileVersion } from "../../util/file-signature.js";
import type { Steps } from "../../util/steps.js";
import type { CronConfig } from "../config/config.js";
import type { ScheduleFileCache } from "./file-cache.js";
import {
  displayPath,
  parseScheduleFileSteps,
  type Schedule,
  scheduleDefaults,
} from "./schedule-file.js";

/** Reads and parses every *.toml in schedules_dir, in name order (unchanged files from `cache`). */
export interface LoadedFiles {
  schedules: Schedule[];
  problems: FieldProblem[];
  warnings: FieldProblem[];
}

/** A step for the stats, then one per file read and parsed, or more (see util/steps.ts). */
export function* scheduleFileSteps(
  config: CronConfig,
  cache?: ScheduleFileCache,
): Steps<LoadedFiles> {
  const dir = config.schedulesDir;
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith(".toml"))
      .sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    const warning = {
      file: displayPath(config.dir, dir),
      field: "",
      found: "no such folder",
      expected: "a folder of schedule files (no schedules are loaded)",
    };
    return { schedules: [], problems: [], warnings: [warning] };
  }
  const defaults = scheduleDefaults(config);
  const paths = names.map((name) => join(dir, name));
  // One stat per file, before it is read: its signature for the cache.
  const versions = cache !== undefined ? paths.map(fileVersion) : [];
  yield; // a stat per file (100 of them: ~2-4 ms), then the first file in a step of its own
  const schedules: Schedule[] = [];
  const problems: FieldProblem[] = [];
  for (const [i, path] of paths.entries()) {
    const file = displayPath(config.dir, path);
    const signature = cache && versions[i]?.signature;
    const known = signature === undefined ? undefined : cache?.get(path, signature);
    if (known !== undefined) {
      for (const s of known.schedules) schedules.push(s);
      problems.push(...known.problems);
      yield; // a reload takes the unchanged files of a big folder in many steps too
      continue;
    }
    let text: Buffer;
    try {
      text = readFileSync(path);
    } catch (err) {
      // Unreadable (a folder, no permission, deleted meanwhile): a problem of this file only.
      const code = (err as NodeJS.ErrnoException).code ?? "error";
      problems.push({
        file,
        field: "",
        found: `an unreadable file (${code})`,
        expected: "a readable TOML file",
      });
      continue;
    }
    const parsed = yield* parseScheduleFileSteps(file, text, defaults, {
      fileDir: dir,
      configDir: config.dir,
    });
    for (const s of parsed.schedules) schedules.push(s);
    problems.push(...parsed.problems);
    if (signature !== undefined) cache?.set(path, signature, parsed.schedules, parsed.problems);
    yield;
  }
  cache?.retain(new Set(paths));
  return { schedules, problems, warnings: [] };
}
