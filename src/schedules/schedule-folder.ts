// The folder of schedule files: every *.toml in schedules_dir read and parsed in name order,
// unchanged files taken from the cache, one step per file (and per hundred entries).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CronConfig } from "../config/config.js";
import type { FieldProblem } from "../util/errors.js";
import { fileVersion } from "../util/file-signature.js";
import type { Steps } from "../util/steps.js";
import type { ScheduleFileCache } from "./file-cache.js";
import {
  displayPath,
  type ParsedScheduleFile,
  parseScheduleFileSteps,
  type Schedule,
  scheduleDefaults,
  tomlScheduleSteps,
} from "./schedule-file.js";
import type { ParsedToml } from "./toml-worker.js";

/** Reads and parses every *.toml in schedules_dir, in name order (unchanged files from `cache`). */
export interface LoadedFiles {
  schedules: Schedule[];
  problems: FieldProblem[];
  warnings: FieldProblem[];
}

/** The schedule files of `dir`, in name order; throws ENOENT when there is no such folder. */
function scheduleFilePaths(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith(".toml"))
    .sort()
    .map((name) => join(dir, name));
}

/** The schedule files a load must read: those whose version `cache` does not hold. */
export function filesToRead(config: CronConfig, cache: ScheduleFileCache | undefined): string[] {
  try {
    return scheduleFilePaths(config.schedulesDir).filter((path) => {
      const signature = fileVersion(path)?.signature;
      return signature === undefined || cache?.get(path, signature) === undefined;
    });
  } catch {
    return [];
  }
}

/**
 * A step for the stats, then one per file read and parsed, or more (see util/steps.ts).
 * `parsed`: files whose TOML was parsed already (in a worker), used when still that version.
 */
export function* scheduleFileSteps(
  config: CronConfig,
  cache?: ScheduleFileCache,
  parsed: ReadonlyMap<string, ParsedToml> = new Map(),
): Steps<LoadedFiles> {
  const dir = config.schedulesDir;
  let paths: string[];
  try {
    paths = scheduleFilePaths(dir);
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
  // One stat per file, before it is read: its signature for the cache.
  const versions = cache !== undefined || parsed.size > 0 ? paths.map(fileVersion) : [];
  yield; // a stat per file, then the first file in a step of its own
  const schedules: Schedule[] = [];
  const problems: FieldProblem[] = [];
  for (const [i, path] of paths.entries()) {
    const file = displayPath(config.dir, path);
    const signature = versions[i]?.signature;
    const known = signature === undefined ? undefined : cache?.get(path, signature);
    if (known !== undefined) {
      for (const s of known.schedules) schedules.push(s);
      problems.push(...known.problems);
      yield; // a reload takes the unchanged files of a big folder in many steps too
      continue;
    }
    const context = { fileDir: dir, configDir: config.dir };
    const early = parsed.get(path);
    let read: ParsedScheduleFile;
    if (early !== undefined && early.signature === signature) {
      read = yield* tomlScheduleSteps(file, early, defaults, context);
    } else {
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
      read = yield* parseScheduleFileSteps(file, text, defaults, context);
    }
    for (const s of read.schedules) schedules.push(s);
    problems.push(...read.problems);
    if (signature !== undefined) cache?.set(path, signature, read.schedules, read.problems);
    yield;
  }
  cache?.retain(new Set(paths));
  return { schedules, problems, warnings: [] };
}
