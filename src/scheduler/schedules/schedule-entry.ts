// One [[schedule]] entry of a schedule file: its schema (checked with zod), and the Schedule
// built from an entry that passed (defaults applied, paths resolved, repeated values shared).
import { isAbsolute, resolve } from "node:path";
import * as z from "zod";
import {
  argvField,
  cronField,
  hookField,
  monitorThresholds,
  scheduleNameField,
} from "../config/fields.js";
import { scheduleKeyRules, settingsMerge } from "../config/schedule-keys.js";
import {
  type HookSpec,
  ISOLATION_MODES,
  type Schedule,
  type ScheduleCommon,
  type ScheduleDefaults,
  type ScheduleFileContext,
} from "./schedule.js";

/** Linux caps one argument at 128 KiB (MAX_ARG_STRLEN); the objective is one. */
export const MAX_OBJECTIVE_BYTES = 100 * 1024;

/**
 * One [[schedule]] as written: its settings' keys (schedule-keys.ts says each one's default
 * and whether [defaults] sets it) and its own. Defaults: kind "preset", project_dir the config
 * file's folder, [schedule.monitor] thresholds from [monitor].
 */
export const scheduleEntry = z
  .strictObject({
    name: scheduleNameField,
    cron: cronField,
    ...scheduleKeyRules,
    kind: z.enum(["preset", "command", "chain"]).default("preset"),
    preset: z.string().min(1).optional(),
    /** kind = "chain": a [[chain]] name in project_dir's chains.toml. */
    chain: z.string().min(1).optional(),
    objective: z
      .string()
      .min(1)
      .refine((text) => Buffer.byteLength(text) <= MAX_OBJECTIVE_BYTES, {
        message: `an objective of at most ${MAX_OBJECTIVE_BYTES / 1024} KB: the harness gets it as one argument, and Linux refuses longer ones (E2BIG); put long standing instructions in the preset's harness.md or a role prompt`,
      })
      .optional(),
    command: argvField.optional(),
    project_dir: z.string().min(1).optional(),
    max_iterations: z.number().int().min(1).optional(),
    /**
     * The preset's settings for this schedule's runs, as `autoloop run --set` takes them:
     * `set = { "backend.command" = "codex", "event_loop.max_iterations" = 8 }`.
     */
    set: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_"-][A-Za-z0-9_.".-]*)*$/, {
          message: 'a dotted preset key such as "backend.command"',
        }),
        z.union([
          z.string(),
          z.number(),
          z.boolean(),
          z.array(z.union([z.string(), z.number(), z.boolean()])),
        ]),
      )
      .optional(),
    /** "worktree": each run in its own git worktree (what makes overlap = "allow" safe). */
    isolation: z.enum(ISOLATION_MODES).optional(),
    /** Env files (NAME=value) the harness hands to this schedule's agent only: its credentials. */
    env_file: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
    /** An event trigger: `POST /hooks/<name>` fires it, signed with its own secret. */
    hook: hookField.optional(),
    monitor: z.strictObject(monitorThresholds).optional(),
  })
  .superRefine((s, ctx) => {
    const need = (key: "preset" | "objective" | "command" | "chain", what: string) => {
      if (s[key] === undefined) ctx.addIssue({ code: "custom", path: [key], message: what });
    };
    const forbid = (
      key:
        | "preset"
        | "objective"
        | "command"
        | "max_iterations"
        | "env_file"
        | "isolation"
        | "chain"
        | "set"
        | "budget",
      hint: string,
    ) => {
      if (s[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], message: hint });
    };
    if (s.kind === "preset") {
      need("preset", 'a preset name or path (kind = "preset", the default)');
      need("objective", 'the objective for the preset (kind = "preset", the default)');
      forbid("command", 'no command when kind = "preset" (set kind = "command" to run a command)');
      forbid("chain", 'no chain when kind = "preset" (set kind = "chain" to run a chain)');
    } else if (s.kind === "chain") {
      need("chain", 'the name of a [[chain]] in project_dir\'s chains.toml (kind = "chain")');
      need("objective", 'the objective for the chain (kind = "chain")');
      for (const key of ["preset", "command", "max_iterations", "isolation"] as const)
        forbid(key, `no ${key} when kind = "chain" (the chain's steps say it in chains.toml)`);
      forbid(
        "budget",
        'no budget when kind = "chain" yet: a budget holds on preset runs (give each step\'s preset event_loop.max_cost_usd in chains.toml, or schedule the presets)',
      );
    } else {
      need("command", 'a command array when kind = "command"');
      for (const key of ["preset", "objective", "max_iterations", "isolation", "chain"] as const) {
        forbid(key, `no ${key} when kind = "command"`);
      }
      forbid(
        "set",
        "no set when kind = \"command\" (it sets a preset's keys; put the command's options in command)",
      );
      forbid(
        "env_file",
        'no env_file when kind = "command" (put the variables in env, or run a preset)',
      );
      forbid(
        "budget",
        'no budget when kind = "command": a command reports no spend (run a preset to hold a budget)',
      );
    }
  });
/** The file's shape; its entries are checked one by one (a load yields between them). */
export const scheduleFileSchema = z.strictObject({ schedule: z.array(z.unknown()).default([]) });

export type ScheduleEntry = z.output<typeof scheduleEntry>;

// Shared by every schedule without a `set` (never mutated).
const NONE: string[] = Object.freeze([]) as unknown as string[];

/** Builds the schedules of one file from its checked entries (`index`: the entry's place). */
export function scheduleBuilder(
  fileName: string,
  defaults: ScheduleDefaults,
  context: ScheduleFileContext,
): (entry: ScheduleEntry, index: number) => Schedule {
  const values = fileValues(context.fileDir);
  const { here, same, list } = values;
  const settings = settingsMerge(defaults, (value) =>
    typeof value === "string"
      ? same(value)
      : Array.isArray(value) && value.every((v) => typeof v === "string")
        ? list(value)
        : value,
  );
  return (s: ScheduleEntry, index: number): Schedule => {
    const common = {
      name: s.name,
      file: fileName,
      index,
      cron: s.cron,
      projectDir: s.project_dir === undefined ? context.configDir : here(s.project_dir),
      monitor: monitorOf(s.monitor, defaults.monitor),
    } as ScheduleCommon;
    settings(common, s, s.kind);
    if (s.hook !== undefined) common.hook = hookOf(s.hook, here);
    return withKind(common, s, values);
  };
}

/**
 * A file's repeated values kept once. Thousands of schedules per file share a few paths and
 * their defaults: each path is resolved once, and schedules that keep a default share its
 * object (bytes per schedule). Values repeated across a file's schedules (a command, a zone,
 * an objective) are kept once, and lists at their exact length (a parsed array keeps room
 * for 16 more items).
 */
interface FileValues {
  /** A path relative to the schedule file, made absolute. */
  here: (p: string) => string;
  same: (v: string) => string;
  list: (items: string[]) => string[];
}

function fileValues(fileDir: string): FileValues {
  const resolved = new Map<string, string>();
  const here = (p: string) => {
    let path = resolved.get(p);
    if (path === undefined) {
      path = isAbsolute(p) ? p : resolve(fileDir, p);
      resolved.set(p, path);
    }
    return path;
  };
  const strings = new Map<string, string>();
  const same = (v: string) => {
    const known = strings.get(v);
    if (known !== undefined) return known;
    strings.set(v, v);
    return v;
  };
  const list = (items: string[]) => (items.length === 0 ? NONE : items.map(same));
  return { here, same, list };
}

/** `[schedule.monitor]` over the config's thresholds (their object itself when not written). */
function monitorOf(
  own: ScheduleEntry["monitor"],
  defaults: ScheduleDefaults["monitor"],
): ScheduleCommon["monitor"] {
  if (own === undefined) return defaults;
  return {
    gateRejections: own.gate_rejections ?? defaults.gateRejections,
    gateGraceMs: own.gate_grace ?? defaults.gateGraceMs,
    stallAfterMs: own.stall_after ?? defaults.stallAfterMs,
    missedGraceMs: own.missed_grace ?? defaults.missedGraceMs,
    costFactor: own.cost_factor ?? defaults.costFactor,
    costRuns: own.cost_runs ?? defaults.costRuns,
  };
}

/** `common` completed with the fields of the entry's kind (command, chain or preset). */
function withKind(
  common: ScheduleCommon,
  s: ScheduleEntry,
  { here, same, list }: FileValues,
): Schedule {
  // Object.assign, not a spread: V8 gives every spread copy its own hidden class (memory
  // for each schedule); added properties share one.
  if (s.kind === "command")
    return Object.assign(common, { kind: "command" as const, command: list(s.command!) });
  const envFiles = s.env_file === undefined ? [] : [s.env_file].flat().map(here);
  const sets = s.set === undefined ? NONE : presetSets(s.set);
  if (s.kind === "chain")
    return Object.assign(common, {
      kind: "chain" as const,
      chain: same(s.chain!),
      objective: same(s.objective!),
      envFiles,
      sets,
    });
  const preset = isPresetPath(s.preset!) ? here(s.preset!) : same(s.preset!);
  const { objective, max_iterations: maxIterations } = s;
  return Object.assign(common, {
    kind: "preset" as const,
    preset,
    presetDir: undefined as string | undefined,
    objective: same(objective!),
    maxIterations,
    envFiles,
    isolation: s.isolation,
    sets,
  });
}

/** A schedule's `set` as `--set key=value` arguments (values in TOML, which JSON's are). */
function presetSets(
  set: Record<string, string | number | boolean | Array<string | number | boolean>>,
): string[] {
  return Object.entries(set).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
}

/** A preset written as a path (rather than a name) contains a slash or starts with a dot. */
export function isPresetPath(preset: string): boolean {
  return preset.includes("/") || preset.startsWith(".");
}

/** A schedule's `hook` as it holds it: the secret's reference (a file relative to `here`). */
function hookOf(hook: NonNullable<ScheduleEntry["hook"]>, here: (p: string) => string): HookSpec {
  return {
    secret:
      hook.secret_env !== undefined
        ? { kind: "env", name: hook.secret_env }
        : { kind: "file", path: here(hook.secret_file!) },
    format: hook.format,
    maxBytes: hook.max_bytes,
    perMinute: hook.per_minute,
  };
}
