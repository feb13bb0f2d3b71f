// One schedule's own checks (alert channels, preset, chain, project dir, env files, jitter),
// built once per pass with the caches that let 100,000 schedules share a preset or a folder.

import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { acceptanceFindings } from "../../harness/preset/acceptance-lint.js";
import { hookFindings } from "../../harness/preset/hooks-lint.js";
import { modelFindings } from "../../harness/preset/model-lint.js";
import { loadPreset } from "../../harness/preset/preset.js";
import { spawnFindings } from "../../harness/preset/spawn-presets.js";
import {
  permissionFindings,
  type TopologyFinding,
  topologyFindings,
} from "../../harness/preset/topology-lint.js";
import { formatDuration } from "../../util/duration.js";
import type { FieldProblem } from "../../util/errors.js";
import { fileSignature } from "../../util/file-signature.js";
import { bundledPresetsDir } from "../../util/package-root.js";
import { nearestKey } from "../../util/toml-input.js";
import type { CronConfig } from "../config/config.js";
import { deliverTokens, unusableDeliverTokens } from "../config/deliver.js";
import { nextFireTime } from "../timing/planner.js";
import { chainChecker } from "./chain-check.js";
import { displayPath, isPresetPath, type Schedule } from "./schedule-file.js";
import { checkSource } from "./source-check.js";

/** The presets shipped with autoloop-cron: the repository's presets/ folder, two levels up
 * both from src/cron/ and from the bundles in dist/bin/. */
export const BUNDLED_PRESETS_DIR = bundledPresetsDir();

/** Records a problem that makes `s` invalid. */
export type Problem = (s: Schedule, field: string, found: string, expected: string) => void;

/** What a pass of checks collects: problems (each drops its schedule) and warnings. */
export interface CheckPass {
  problems: FieldProblem[];
  warnings: FieldProblem[];
  bad: Set<Schedule>;
  problem: Problem;
}

export function newCheckPass(): CheckPass {
  const pass: CheckPass = {
    problems: [],
    warnings: [],
    bad: new Set(),
    problem: (s, field, found, expected) => {
      pass.problems.push({ file: s.file, field: at(s, field), found, expected });
      pass.bad.add(s);
    },
  };
  return pass;
}

/** The field path of `field` in `s`'s file. */
export const at = (s: Schedule, field: string) => `schedule[${s.index}].${field}`;

// Any fixed instant will do to measure the gap between two slots.
const JITTER_REFERENCE = new Date(Date.UTC(2030, 0, 1));

/**
 * The checker of one schedule's own fields for this pass; it records each preset schedule's
 * folder (undefined when it does not resolve) in `presetDirs`. One function built once, so
 * that the loop over every schedule makes no closure (and no scope object) per schedule:
 * 100,000 of them on a reload.
 */
export function ownChecker(
  config: CronConfig,
  pass: CheckPass,
  presetDirs: Map<Schedule, string | undefined>,
): (s: Schedule) => void {
  const exists = diskOnce();
  const channels = config.channels.map((c) => c.name);
  const checkPresetOf = presetChecker(config, pass);
  const checkChain = chainChecker(config.presetsDir);
  return (s) => {
    checkAlerts(s, channels, pass.problem);
    if (s.kind === "preset") presetDirs.set(s, checkPresetOf(s));
    if (s.kind === "chain") checkChain(s, pass.problem);
    checkFolders(s, exists, pass.warnings);
    checkJitter(s, pass.warnings);
    checkDeliver(s, pass.warnings);
    checkSource(s, at, pass.warnings);
    checkFetch(s, pass.warnings);
  };
}

/** Many schedules share a project dir (and env files): ask the disk once per path. */
function diskOnce(): (path: string) => boolean {
  const seen = new Map<string, boolean>();
  return (path) => {
    let there = seen.get(path);
    if (there === undefined) {
      there = existsSync(path);
      seen.set(path, there);
    }
    return there;
  };
}

/** Each `alert` entry names a [[channel]] of the config. */
function checkAlerts(s: Schedule, channels: string[], problem: Problem): void {
  s.alert.forEach((c, i) => {
    if (!channels.includes(c))
      problem(
        s,
        `alert[${i}]`,
        JSON.stringify(c),
        `the name of a [[channel]] in the config (${hint(c, channels)})`,
      );
  });
}

/**
 * The checker of a preset schedule's preset: it resolves, loads with the schedule's `set`,
 * and its topology can complete; returns its folder. A preset's warnings are said once,
 * however many schedules run it; its files are looked at once per pass (a hundred thousand
 * schedules may share it).
 */
function presetChecker(
  config: CronConfig,
  pass: CheckPass,
): (s: Extract<Schedule, { kind: "preset" }>) => string | undefined {
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
  return (s) => {
    const dir = resolvePreset(s, config, pass.problem);
    const checked = dir === undefined ? undefined : presetOf(dir, s.sets);
    // A preset that does not load is said here when the schedule's `set` may be why (else
    // at its run, which names the file).
    if (checked?.loadError !== undefined && s.sets.length > 0)
      pass.problem(
        s,
        "set",
        JSON.stringify(s.sets),
        `settings the preset takes (${checked.loadError})`,
      );
    if (checked?.syncsTasks === true && s.source === undefined)
      pass.warnings.push({
        file: s.file,
        field: at(s, "source"),
        found: "none",
        expected:
          'an issue tracker (source = { github_issues = { ... } }): the preset asks for task sync ([tasks] sync = "issue"), which only a run that took an issue has',
      });
    for (const f of checked?.findings ?? []) {
      const where = `${displayPath(config.dir, f.file)}: ${f.field}: found ${f.found}`;
      if (f.severity === "error")
        pass.problem(
          s,
          "preset",
          JSON.stringify(s.preset),
          `a preset that can complete (${where}; expected ${f.expected})`,
        );
      else if (!warnedPresets.has(`${f.file}\0${f.field}\0${f.found}`)) {
        warnedPresets.add(`${f.file}\0${f.field}\0${f.found}`);
        pass.warnings.push({
          file: displayPath(config.dir, f.file),
          field: f.field,
          found: f.found,
          expected: f.expected,
        });
      }
    }
    return dir;
  };
}

/** The project dir, and a preset schedule's env files, exist (a warning: runs fail until then). */
function checkFolders(
  s: Schedule,
  exists: (path: string) => boolean,
  warnings: FieldProblem[],
): void {
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
}

/** A jitter shorter than the gap between two slots (a warning: else slots fire out of order). */
function checkJitter(s: Schedule, warnings: FieldProblem[]): void {
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
}

/**
 * `deliver` on runs that leave no branch (`isolation = "shared"`), and a forge token
 * this environment cannot read: said, not refused (the daemon's environment may hold the token
 * where `validate` runs without it).
 */
/** `fetch` moves where a worktree run starts: any other run would fetch for nothing. */
function checkFetch(s: Schedule, warnings: FieldProblem[]): void {
  if (s.fetch !== true) return;
  const shared = s.kind === "preset" && s.isolation === "shared";
  if (s.kind === "preset" && !shared) return;
  warnings.push({
    file: s.file,
    field: at(s, shared ? "isolation" : "fetch"),
    found: shared ? '"shared"' : `fetch = true on a ${s.kind} schedule`,
    expected:
      'fetch = true on worktree runs of a preset (isolation = "worktree"): the run\'s worktree starts from the fetched branch; a shared checkout is never moved',
  });
}

function checkDeliver(s: Schedule, warnings: FieldProblem[]): void {
  const tokens = deliverTokens(s.deliver);
  if (tokens.length === 0) return;
  if (s.kind === "preset" && s.isolation === "shared")
    warnings.push({
      file: s.file,
      field: at(s, "isolation"),
      found: '"shared"',
      expected:
        'worktree runs (isolation = "worktree"): only a run with its own branch is delivered as a pull request or a review',
    });
  if (s.deliver?.review !== undefined && s.kind !== "preset")
    warnings.push({
      file: s.file,
      field: at(s, "deliver.review"),
      found: `deliver.review on a ${s.kind} schedule`,
      expected: "a preset schedule: only a preset's run is given the pull request's head to review",
    });
  for (const unusable of unusableDeliverTokens([s], process.env)) {
    const token = tokens.find((t) => t.key === unusable.key)!.token;
    warnings.push({
      file: s.file,
      field: at(s, unusable.key),
      found: JSON.stringify(
        token.kind === "env" ? token.name : token.kind === "file" ? token.path : "",
      ),
      expected: `a forge token the daemon can read (${unusable.problem})`,
    });
  }
}

/** A "did you mean" for a name not among `known`, or what is known. */
export function hint(name: string, known: string[]): string {
  const near = nearestKey(name, known);
  if (near !== undefined) return `did you mean ${JSON.stringify(near)}?`;
  return known.length === 0 ? "none are defined" : `known: ${known.join(", ")}`;
}

/** A preset folder, or a single-file preset (a .toml of its own). */
const hasPreset = (path: string) =>
  existsSync(join(path, "autoloops.toml")) ||
  (path.endsWith(".toml") && existsSync(path) && !statSync(path).isDirectory());

/** The preset's folder: a path as written, else presets_dir/<name>, else the bundled one. */
function resolvePreset(
  s: Extract<Schedule, { kind: "preset" }>,
  config: CronConfig,
  problem: Problem,
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
  /** It asks for task sync (`[tasks] sync = "issue"`). */
  syncsTasks?: boolean;
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
      // A scheduled run's spawns are looked up beside its preset and among the bundled ones.
      const findings = [
        ...topologyFindings(preset),
        ...permissionFindings(preset),
        ...hookFindings(preset.config),
        ...spawnFindings(preset, undefined, {}),
        ...acceptanceFindings(preset),
        ...modelFindings(preset),
      ].map((f) => ({
        ...f,
        file: /^(event_loop|backend|hooks?|acceptance|review)[.[]|^chain_spawn/.test(f.field)
          ? files[0]!
          : topology,
      }));
      found = { findings, syncsTasks: preset.config.tasks.sync === "issue" };
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
