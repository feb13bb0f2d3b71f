// Cross-file checks over every schedule: unique names, `after` targets without cycles, known
// alert channels, presets that resolve, project dirs that exist (a warning only).

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { eachItem, runSteps, type Steps } from "../../util/steps.js";
import type { CronConfig } from "../config/config.js";
import type { ScheduleFileCache } from "./file-cache.js";
import { type InForce, readInForce } from "./in-force.js";
import { type CheckPass, hint, newCheckPass, ownChecker } from "./own-checks.js";
import type { Schedule } from "./schedule-file.js";
import { type LoadedFiles, scheduleFileSteps } from "./schedule-folder.js";
import type { ValidationReport } from "./validation-report.js";

export { BUNDLED_PRESETS_DIR } from "./own-checks.js";

/**
 * Loads every schedule file of `config` and checks the schedules against each other.
 * `inForce` (name → file) says which file holds a name now: a newcomer reusing the name is
 * the one reported invalid. Without it, the daemon's last record is used (so `validate`
 * and the running daemon agree), then the older file, then name order.
 */
export function validateAll(
  config: CronConfig,
  inForce: InForce = readInForce(config),
  cache?: ScheduleFileCache,
): ValidationReport {
  return runSteps(validateAllSteps(config, inForce, cache));
}

/** `validateAll` as steps (a file read, or a few hundred schedules checked, per step). */
export function* validateAllSteps(
  config: CronConfig,
  inForce: InForce = readInForce(config),
  cache?: ScheduleFileCache,
): Steps<ValidationReport> {
  return yield* checkLoadedSteps(yield* scheduleFileSteps(config, cache), config, inForce, cache);
}

/** The checks of `validateAllSteps` over files already loaded. */
export function* checkLoadedSteps(
  loaded: LoadedFiles,
  config: CronConfig,
  inForce: InForce,
  cache?: ScheduleFileCache,
): Steps<ValidationReport> {
  const clean = cache?.cleanFiles();
  const checked = yield* checkScheduleSteps(
    loaded.schedules,
    config,
    inForce,
    (s) => clean?.has(s.file) ?? false,
  );
  cache?.markClean(new Set([...checked.problems, ...checked.warnings].map((p) => p.file)));
  return {
    schedules: checked.schedules,
    problems: [...loaded.problems, ...checked.problems],
    warnings: [...loaded.warnings, ...checked.warnings],
    ...(loaded.problems.length === 0 && checked.byName && { byName: checked.byName }),
  };
}

/**
 * The order in which schedules sharing a name claim it: in force, then older file, then name;
 * and the winner of each name.
 */
function* claimOrder(
  all: Schedule[],
  config: CronConfig,
  inForce: InForce,
): Steps<{ ordered: Schedule[]; winners: Map<string, Schedule> }> {
  const mtimes = new Map<string, number>();
  const mtime = (file: string) => {
    let t = mtimes.get(file);
    if (t === undefined) {
      try {
        t = statSync(resolve(config.dir, file)).mtimeMs;
      } catch {
        t = Number.POSITIVE_INFINITY;
      }
      mtimes.set(file, t);
    }
    return t;
  };
  const rank = (s: Schedule) => (inForce.get(s.name) === s.file ? 0 : 1);
  // Negative when `a` claims the name before `b`; ties keep file order (the first file wins).
  const before = (a: Schedule, b: Schedule) => rank(a) - rank(b) || mtime(a.file) - mtime(b.file);
  const winners = new Map<string, Schedule>();
  yield* eachItem(
    all,
    (s) => {
      const held = winners.get(s.name);
      if (held === undefined || before(s, held) < 0) winners.set(s.name, s);
    },
    200,
  );
  if (winners.size === all.length) return { ordered: all, winners }; // no name taken twice
  const first = all.filter((s) => winners.get(s.name) === s);
  return { ordered: [...first, ...all.filter((s) => winners.get(s.name) !== s)], winners };
}

/**
 * Checks parsed schedules together; drops those with problems. `checkedBefore`: schedules
 * whose own checks passed before and cannot have changed (cross-file checks still run).
 */
export function* checkScheduleSteps(
  all: Schedule[],
  config: CronConfig,
  inForce: InForce,
  checkedBefore: (s: Schedule) => boolean,
): Steps<ValidationReport> {
  const pass = newCheckPass();
  const { ordered, winners } = yield* claimOrder(all, config, inForce);
  const byName = ordered === all ? winners : claimNames(ordered, inForce, pass);
  const presetDirs = new Map<Schedule, string | undefined>();
  const checkOwn = ownChecker(config, pass, presetDirs);
  // Those with `after`, for the cycle search: no second pass over every schedule for them.
  const dependent: Schedule[] = [];
  // By index: a for-of step in a generator allocates its result object.
  for (let k = 0; k < all.length; k++) {
    const s = all[k]!;
    if ((k + 1) % 100 === 0) yield;
    if (s.after.length > 0) dependent.push(s);
    checkAfterNames(s, byName, pass);
    if (!checkedBefore(s)) checkOwn(s);
  }
  checkCycles(dependent, byName, pass);
  const { problems, warnings, bad } = pass;
  const schedules = bad.size === 0 ? all : all.filter((s) => !bad.has(s));
  // Set in place (schedules come fresh from their file): a copy per schedule costs memory.
  // In steps, as the loop above: a pass over every schedule at once would hold the loop.
  yield* eachItem(presetDirs, ([s, dir]) => {
    if (s.kind === "preset" && !bad.has(s)) s.presetDir = dir;
  });
  return { schedules, problems, warnings, ...(bad.size === 0 && { byName }) };
}

/** Each name's holder, in claim order; a later schedule taking a held name is a problem. */
function claimNames(ordered: Schedule[], inForce: InForce, pass: CheckPass) {
  const byName = new Map<string, Schedule>();
  for (const s of ordered) {
    const first = byName.get(s.name);
    if (first === undefined) byName.set(s.name, s);
    else {
      const held = inForce.get(s.name) === first.file ? ", and is in force" : "";
      pass.problem(
        s,
        "name",
        JSON.stringify(s.name),
        `a name no other schedule has (${first.file}: schedule[${first.index}] has it${held}); rename this one`,
      );
    }
  }
  return byName;
}

/** Each `after` entry names a schedule. */
function checkAfterNames(s: Schedule, byName: ReadonlyMap<string, Schedule>, pass: CheckPass) {
  for (let i = 0; i < s.after.length; i++) {
    const name = s.after[i]!;
    if (!byName.has(name))
      pass.problem(
        s,
        `after[${i}]`,
        JSON.stringify(name),
        `the name of a schedule (${hint(name, [...byName.keys()])})`,
      );
  }
}

/** No cycle among the `after` edges of schedules without problems so far. */
function checkCycles(
  dependent: Schedule[],
  byName: ReadonlyMap<string, Schedule>,
  pass: CheckPass,
) {
  for (const cycle of findCycles(
    dependent.filter((s) => !pass.bad.has(s)),
    byName,
  )) {
    const path = [...cycle.map((s) => s.name), cycle[0]!.name].join(" → ");
    for (const s of cycle)
      pass.problem(s, "after", JSON.stringify(s.after), `no cycle of after dependencies (${path})`);
  }
}

/** Cycles among `after` edges (each reported once), by depth-first search. */
function findCycles(schedules: Schedule[], byName: ReadonlyMap<string, Schedule>): Schedule[][] {
  const candidates = new Set(schedules);
  const state = new Map<Schedule, "visiting" | "done">();
  const cycles: Schedule[][] = [];
  const stack: Schedule[] = [];
  const visit = (s: Schedule) => {
    state.set(s, "visiting");
    stack.push(s);
    for (const name of s.after) {
      const next = byName.get(name);
      if (next === undefined || !candidates.has(next)) continue;
      if (state.get(next) === "visiting") cycles.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(s, "done");
  };
  for (const s of schedules) if (!state.has(s)) visit(s);
  return cycles;
}
