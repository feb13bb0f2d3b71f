// Cross-file checks over every schedule: unique names, `after` targets without cycles, known
// alert channels, presets that resolve, project dirs that exist (a warning only).

import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadPreset } from "../../harness/preset/preset.js";
import {
  permissionFindings,
  type TopologyFinding,
  topologyFindings,
} from "../../harness/preset/topology-lint.js";
import { formatDuration } from "../../util/duration.js";
import type { FieldProblem } from "../../util/errors.js";
import { fileSignature } from "../../util/file-signature.js";
import { bundledPresetsDir } from "../../util/package-root.js";
import { eachItem, runSteps, type Steps } from "../../util/steps.js";
import { nearestKey } from "../../util/toml-input.js";
import type { CronConfig } from "../config/config.js";
import { nextFireTime } from "../timing/planner.js";
import { chainChecker } from "./chain-check.js";
import type { ScheduleFileCache } from "./file-cache.js";
import { type InForce, readInForce } from "./in-force.js";
import { displayPath, isPresetPath, type Schedule } from "./schedule-file.js";
import { type LoadedFiles, scheduleFileSteps } from "./schedule-folder.js";
import type { ValidationReport } from "./validation-report.js";

/** The presets shipped with autoloop-cron: the repository's presets/ folder, two levels up
 * both from src/cron/ and from the bundles in dist/bin/. */
export const BUNDLED_PRESETS_DIR = bundledPresetsDir();

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

// Any fixed instant will do to measure the gap between two slots.
const JITTER_REFERENCE = new Date(Date.UTC(2030, 0, 1));
const at = (s: Schedule, field: string) => `schedule[${s.index}].${field}`;

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
  const problems: FieldProblem[] = [];
  const warnings: FieldProblem[] = [];
  const bad = new Set<Schedule>();
  const problem = (s: Schedule, field: string, found: string, expected: string) => {
    problems.push({ file: s.file, field: at(s, field), found, expected });
    bad.add(s);
  };
  const presetDirs = new Map<Schedule, string | undefined>();
  const { ordered, winners } = yield* claimOrder(all, config, inForce);
  const byName = ordered === all ? winners : new Map<string, Schedule>();
  for (const s of byName === winners ? [] : ordered) {
    const first = byName.get(s.name);
    if (first === undefined) byName.set(s.name, s);
    else {
      const held = inForce.get(s.name) === first.file ? ", and is in force" : "";
      problem(
        s,
        "name",
        JSON.stringify(s.name),
        `a name no other schedule has (${first.file}: schedule[${first.index}] has it${held}); rename this one`,
      );
    }
  }
  // Many schedules share a project dir (and env files): ask the disk once per path.
  const seen = new Map<string, boolean>();
  const exists = (path: string) => {
    let there = seen.get(path);
    if (there === undefined) {
      there = existsSync(path);
      seen.set(path, there);
    }
    return there;
  };
  const channels = config.channels.map((c) => c.name);
  // A preset's warnings are said once, however many schedules run it; its files are looked at
  // once per pass (a hundred thousand schedules may share it).
  const warnedPresets = new Set<string>();
  const presets = new Map<string, PresetCheck>();
  const presetOf = (dir: string, sets: readonly string[]) => {
    const key = `${dir}\0${sets.join("\0")}`;
    let found = presets.get(key);
    if (found === undefined) {
      found = checkPreset(dir, sets);
      presets.set(key, found);
    }
    return found;
  };
  const checkChain = chainChecker(config.presetsDir);
  // One schedule's own checks; a function of its own, so that the loop over every schedule
  // below makes no closure (and no scope object) per schedule: 100,000 of them on a reload.
  const checkOwn = (s: Schedule) => {
    s.alert.forEach((c, i) => {
      if (!channels.includes(c))
        problem(
          s,
          `alert[${i}]`,
          JSON.stringify(c),
          `the name of a [[channel]] in the config (${hint(c, channels)})`,
        );
    });
    if (s.kind === "preset") {
      const dir = resolvePreset(s, config, problem);
      presetDirs.set(s, dir);
      const checked = dir === undefined ? undefined : presetOf(dir, s.sets);
      // A preset that does not load is said here when the schedule's `set` may be why (else
      // at its run, which names the file).
      if (checked?.loadError !== undefined && s.sets.length > 0)
        problem(
          s,
          "set",
          JSON.stringify(s.sets),
          `settings the preset takes (${checked.loadError})`,
        );
      for (const f of checked?.findings ?? []) {
        const where = `${displayPath(config.dir, f.file)}: ${f.field}: found ${f.found}`;
        if (f.severity === "error")
          problem(
            s,
            "preset",
            JSON.stringify(s.preset),
            `a preset that can complete (${where}; expected ${f.expected})`,
          );
        else if (!warnedPresets.has(`${f.file}\0${f.field}\0${f.found}`)) {
          warnedPresets.add(`${f.file}\0${f.field}\0${f.found}`);
          warnings.push({
            file: displayPath(config.dir, f.file),
            field: f.field,
            found: f.found,
            expected: f.expected,
          });
        }
      }
    }
    if (s.kind === "chain") checkChain(s, problem);
    if (!exists(s.projectDir)) {
      warnings.push({
        file: s.file,
        field: at(s, "project_dir"),
        found: JSON.stringify(s.projectDir),
        expected: "an existing folder (runs fail until it exists)",
      });
    }
    if (s.kind === "preset") {
      s.envFiles.forEach((file, i) => {
        if (exists(file)) return;
        warnings.push({
          file: s.file,
          field: at(s, s.envFiles.length === 1 ? "env_file" : `env_file[${i}]`),
          found: JSON.stringify(file),
          expected: "an existing env file of NAME=value lines (runs fail until it exists)",
        });
      });
    }
    const first = s.jitterMs > 0 ? nextFireTime(s, JITTER_REFERENCE) : undefined;
    const second = first && nextFireTime(s, first);
    if (first && second && s.jitterMs >= second.getTime() - first.getTime()) {
      warnings.push({
        file: s.file,
        field: at(s, "jitter"),
        found: JSON.stringify(formatDuration(s.jitterMs)),
        expected: "less than the time between two slots, or slots fire out of order",
      });
    }
  };
  // Those with `after`, for the cycle search: no second pass over every schedule for them.
  const dependent: Schedule[] = [];
  // By index: a for-of step in a generator allocates its result object.
  for (let k = 0; k < all.length; k++) {
    const s = all[k]!;
    if ((k + 1) % 100 === 0) yield;
    if (s.after.length > 0) dependent.push(s);
    for (let i = 0; i < s.after.length; i++) {
      const name = s.after[i]!;
      if (!byName.has(name))
        problem(
          s,
          `after[${i}]`,
          JSON.stringify(name),
          `the name of a schedule (${hint(name, [...byName.keys()])})`,
        );
    }
    if (!checkedBefore(s)) checkOwn(s);
  }
  for (const cycle of findCycles(
    dependent.filter((s) => !bad.has(s)),
    byName,
  )) {
    const path = [...cycle.map((s) => s.name), cycle[0]!.name].join(" → ");
    for (const s of cycle)
      problem(s, "after", JSON.stringify(s.after), `no cycle of after dependencies (${path})`);
  }
  const schedules = bad.size === 0 ? all : all.filter((s) => !bad.has(s));
  // Set in place (schedules come fresh from their file): a copy per schedule costs memory.
  // In steps, as the loop above: a pass over every schedule at once would hold the loop.
  yield* eachItem(presetDirs, ([s, dir]) => {
    if (s.kind === "preset" && !bad.has(s)) s.presetDir = dir;
  });
  return { schedules, problems, warnings, ...(bad.size === 0 && { byName }) };
}

function hint(name: string, known: string[]): string {
  const near = nearestKey(name, known);
  if (near !== undefined) return `did you mean ${JSON.stringify(near)}?`;
  return known.length === 0 ? "none are defined" : `known: ${known.join(", ")}`;
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

/** A preset folder, or a single-file preset (a .toml of its own). */
const hasPreset = (path: string) =>
  existsSync(join(path, "autoloops.toml")) ||
  (path.endsWith(".toml") && existsSync(path) && !statSync(path).isDirectory());

/** The preset's folder: a path as written, else presets_dir/<name>, else the bundled one. */
function resolvePreset(
  s: Extract<Schedule, { kind: "preset" }>,
  config: CronConfig,
  problem: (s: Schedule, field: string, found: string, expected: string) => void,
): string | undefined {
  const candidates = isPresetPath(s.preset)
    ? [s.preset]
    : [join(config.presetsDir, s.preset), join(BUNDLED_PRESETS_DIR, s.preset)];
  const found = candidates.find(hasPreset);
  if (found !== undefined) return found;
  const looked = candidates.map((c) => displayPath(config.dir, c)).join(" and ");
  const known = isPresetPath(s.preset)
    ? []
    : [...presetNames(config.presetsDir), ...presetNames(BUNDLED_PRESETS_DIR)];
  const near = nearestKey(s.preset, known);
  const suggestion = near === undefined ? "" : `; did you mean ${JSON.stringify(near)}?`;
  problem(
    s,
    "preset",
    JSON.stringify(s.preset),
    `a preset folder containing autoloops.toml (looked in ${looked}${suggestion})`,
  );
  return undefined;
}

/** A preset loaded with a schedule's `set`: why it does not load, or what its topology says. */
interface PresetCheck {
  loadError?: string;
  findings: Array<TopologyFinding & { file: string }>;
}

/** Presets checked, by folder, sets and their files' signatures (a change is checked again). */
const presetsChecked = new Map<string, PresetCheck>();

function checkPreset(dir: string, sets: readonly string[]): PresetCheck {
  const files = [join(dir, "autoloops.toml"), join(dir, "topology.toml")];
  const stamp = files.map((f) => fileSignature(f) ?? "").join("|");
  const key = `${dir}\0${sets.join("\0")}\0${stamp}`;
  let found = presetsChecked.get(key);
  if (found === undefined) {
    try {
      const preset = loadPreset(dir, sets);
      const topology = existsSync(files[1]!) ? files[1]! : dir;
      const findings = [...topologyFindings(preset), ...permissionFindings(preset)].map((f) => ({
        ...f,
        file:
          f.field.startsWith("event_loop.") || f.field.startsWith("backend.")
            ? files[0]!
            : topology,
      }));
      found = { findings };
    } catch (err) {
      found = { loadError: (err as Error).message.split("\n")[0]!, findings: [] };
    }
    if (presetsChecked.size > 1000) presetsChecked.clear();
    presetsChecked.set(key, found);
  }
  return found;
}

function presetNames(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => hasPreset(join(dir, n)));
  } catch {
    return [];
  }
}
