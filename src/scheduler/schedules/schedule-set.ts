// The schedules in force: the newest valid version of each file. A file that fails
// validation on reload keeps its previous good schedules, so one typo stops nothing.

import type { FieldProblem } from "../../util/errors.js";
import { runSteps, type Steps } from "../../util/steps.js";
import type { CronConfig } from "../config/config.js";
import type { ScheduleFileCache } from "./file-cache.js";
import { type InForce, readInForce } from "./in-force.js";
import type { Schedule } from "./schedule-file.js";
import { scheduleFileSteps } from "./schedule-folder.js";
import { checkLoadedSteps } from "./validate.js";

export interface ScheduleSetUpdate {
  /** The schedules in force from now on (unchanged files' schedules are the same objects). */
  schedules: Map<string, Schedule>;
  /** Problems of this load, per file (display path). */
  problems: FieldProblem[];
  warnings: FieldProblem[];
  /** Files whose previous version stays in force because the new one is invalid. */
  keptPrevious: string[];
}

export function loadScheduleSet(
  config: CronConfig,
  previous: ReadonlyMap<string, Schedule> = new Map(),
  /** Parsed files kept between loads: unchanged files are not read again. */
  cache?: ScheduleFileCache,
): ScheduleSetUpdate {
  return runSteps(scheduleSetSteps(config, previous, cache));
}

/** `loadScheduleSet` as steps, for the daemon to load in slices (see util/steps.ts). */
export function* scheduleSetSteps(
  config: CronConfig,
  previous: ReadonlyMap<string, Schedule> = new Map(),
  cache?: ScheduleFileCache,
): Steps<ScheduleSetUpdate> {
  // The names in force stay with their files: a newcomer reusing one is the invalid file.
  const inForce: InForce =
    previous.size > 0 ? { get: (name) => previous.get(name)?.file } : readInForce(config);
  const loaded = yield* scheduleFileSteps(config, cache);
  const report = yield* checkLoadedSteps(loaded, config, inForce, cache);
  const badFiles = new Set(report.problems.map((p) => p.file));
  if (badFiles.size === 0 && report.byName) {
    // The report's own map (made for this load only): no copy of 100,000 entries.
    return { schedules: report.byName, problems: [], warnings: report.warnings, keptPrevious: [] };
  }
  const schedules = new Map<string, Schedule>();
  for (const s of report.schedules) if (!badFiles.has(s.file)) schedules.set(s.name, s);
  const keptPrevious = new Set<string>();
  for (const s of previous.values()) {
    if (badFiles.has(s.file) && !schedules.has(s.name)) {
      schedules.set(s.name, s);
      keptPrevious.add(s.file);
    }
  }
  return {
    schedules,
    problems: report.problems,
    warnings: report.warnings,
    keptPrevious: [...keptPrevious],
  };
}

/** True when a reload changed what matters for planning or launching a schedule. */
export function scheduleChanged(a: Schedule, b: Schedule): boolean {
  if (a === b) return false; // the same object: its file did not change
  return JSON.stringify({ ...a, index: 0 }) !== JSON.stringify({ ...b, index: 0 });
}
