// The folder of schedule files: every *.toml in schedules_dir read and parsed in name order,
// unchanged files taken from the cache, one step per file (and per hundred entries).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CronConfig } from "../config/config.js";
import type { FieldProblem } from "../util/errors.js";
import { fileSignature } from "../util/file-signature.js";
import type { Steps } from "../util/steps.js";
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

/** One step per file read and parsed (see util/steps.ts). */
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
  const schedules: Schedule[] = [];
  const problems: FieldProblem[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const file = displayPath(config.dir, path);
    const signature = cache && fileSignature(path);
    const known = signature === undefined ? undefined : cache?.get(path, signature);
    if (known !== undefined) {
      for (const s of known.schedules) schedules.push(s);
      problems.push(...known.problems);
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
    else cache?.missed(); // read, not stored: the next reload checks every file
    yield;
  }
  cache?.retain(new Set(names.map((n) => join(dir, n))));
  return { schedules, problems, warnings: [] };
}
