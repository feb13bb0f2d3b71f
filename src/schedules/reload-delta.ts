// A reload that changed a few files among many. When the last load was clean, and the edit
// keeps every name it had and touches no `after` dependency, only the changed files'
// schedules are checked and put in force: the others cannot have changed, nor can any check
// between them and the changed ones. The full check walks every schedule (~100 ms for
// 100,000, mostly hash lookups); this costs the changed files.

import type { CronConfig } from "../config/config.js";
import type { FieldProblem } from "../util/errors.js";
import type { Steps } from "../util/steps.js";
import type { ScheduleFileCache } from "./file-cache.js";
import type { Schedule } from "./schedule-file.js";
import type { LoadedFiles } from "./schedule-folder.js";
import { checkScheduleSteps } from "./validate.js";

export interface ChangedSchedules {
  /** The changed files' schedules by name: each replaces the one of its name, or is new. */
  changed: ReadonlyMap<string, Schedule>;
  warnings: FieldProblem[];
}

/**
 * Checks only the files parsed by this load, or returns undefined when the whole set must be
 * checked: a file with problems or removed, a name gone or taken from an unchanged file, an
 * `after` in an old or new version of a changed schedule. `previous` must be the schedules
 * put in force by the last load, and `cache.allClean()` must have been true before this one.
 */
export function* changedOnlySteps(
  loaded: LoadedFiles,
  previous: ReadonlyMap<string, Schedule>,
  config: CronConfig,
  cache: ScheduleFileCache,
): Steps<ChangedSchedules | undefined> {
  const fresh = cache.freshFiles();
  if (fresh === undefined || loaded.problems.length > 0 || loaded.warnings.length > 0)
    return undefined;
  const files = new Set<string>();
  const schedules: Schedule[] = [];
  const names = new Set<string>();
  for (const file of fresh)
    for (const s of file.schedules) {
      if (s.after.length > 0) return undefined;
      schedules.push(s);
      names.add(s.name);
      files.add(s.file);
    }
  for (const file of fresh)
    for (const s of file.replaced) {
      if (s.after.length > 0 || !names.has(s.name)) return undefined;
      files.add(s.file);
    }
  for (const s of schedules) {
    const held = previous.get(s.name);
    if (held !== undefined && !files.has(held.file)) return undefined; // the full check says who keeps it
  }
  yield;
  const inForce = { get: (name: string) => previous.get(name)?.file };
  const checked = yield* checkScheduleSteps(schedules, config, inForce, () => false);
  if (checked.problems.length > 0 || checked.byName === undefined) return undefined;
  cache.markClean(new Set(checked.warnings.map((p) => p.file)));
  return { changed: checked.byName, warnings: checked.warnings };
}
