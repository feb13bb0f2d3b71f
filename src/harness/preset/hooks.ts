// Lifecycle hooks as a preset declares them (docs/formats.md, "Hooks"): the public autoloop's
// `[hooks]` table (one command per phase) and `[[hook]]` entries (phase, command, on_error,
// mutate), read into one ordered list of specs.
import * as z from "zod/mini";
import { formatProblem } from "../../util/errors.js";
import { schemaProblems } from "../../util/toml-input.js";

/** Where a hook can run: around the run, around each iteration, around each emit. */
export const HOOK_PHASES = [
  "pre_run",
  "post_run",
  "pre_iteration",
  "post_iteration",
  "pre_emit",
  "post_emit",
] as const;
export type HookPhase = (typeof HOOK_PHASES)[number];

/** What a failing hook does: stops the run, is only reported, or suspends the run. */
export const HOOK_ON_ERRORS = ["block", "warn", "suspend"] as const;
export type HookOnError = (typeof HOOK_ON_ERRORS)[number];

export const HOOK_MUTATES = ["none", "prompt", "event"] as const;
export type HookMutate = (typeof HOOK_MUTATES)[number];

/** How long a hook may run unless it says: the agent's own default. */
export const DEFAULT_HOOK_TIMEOUT_MS = 300_000;

/** A shell line (the public form, run by `sh -c`) or an argv list (run as it is). */
const command = z.union([
  z.string().check(z.refine((s) => s.trim() !== "", "a command line, not empty")),
  z.array(z.string()).check(z.minLength(1, 'an argv list such as ["scripts/sync.sh", "push"]')),
]);

const timeoutMs = z.optional(z.int().check(z.gte(1, "milliseconds, 1 or more")));

/** `[[hook]]`: one hook of one phase. */
export const hookEntrySchema = z.looseObject({
  phase: z.enum(HOOK_PHASES),
  command,
  on_error: z._default(z.enum(HOOK_ON_ERRORS), "warn"),
  mutate: z._default(z.enum(HOOK_MUTATES), "none"),
  timeout_ms: timeoutMs,
});

/** `[hooks]`: the public autoloop's first form; `strict` makes a failing pre_run stop the run. */
export const legacyHooksSchema = z.looseObject({
  pre_run: z.optional(z.string()),
  pre_iteration: z.optional(z.string()),
  post_iteration: z.optional(z.string()),
  post_run: z.optional(z.string()),
  strict: z.optional(z.union([z.boolean(), z.string()])),
  timeout_ms: timeoutMs,
});

export interface HookSpec {
  phase: HookPhase;
  command: string | string[];
  onError: HookOnError;
  mutate: HookMutate;
  /** Where it was declared, for `hooks list`: "legacy" (`[hooks]`) or "hook[<i>]". */
  source: string;
  timeoutMs: number;
}

export interface HookConfig {
  hooks?: z.output<typeof legacyHooksSchema> | undefined;
  hook?: Array<z.output<typeof hookEntrySchema>> | undefined;
}

const LEGACY_PHASES = ["pre_run", "pre_iteration", "post_iteration", "post_run"] as const;

/** Every declared hook: `[hooks]` first in phase order, then `[[hook]]` in file order. */
export function hookSpecs(config: HookConfig): HookSpec[] {
  const specs: HookSpec[] = [];
  const legacy = config.hooks;
  if (legacy !== undefined) {
    const strict = legacy.strict === true || legacy.strict === "true";
    const timeout = legacy.timeout_ms ?? DEFAULT_HOOK_TIMEOUT_MS;
    for (const phase of LEGACY_PHASES) {
      const line = legacy[phase];
      if (line === undefined || line.trim() === "") continue;
      const onError = strict && phase === "pre_run" ? "block" : "warn";
      specs.push({
        phase,
        command: line,
        onError,
        mutate: "none",
        source: "legacy",
        timeoutMs: timeout,
      });
    }
  }
  (config.hook ?? []).forEach((h, i) => {
    specs.push({
      phase: h.phase,
      command: h.command,
      onError: h.on_error,
      mutate: h.mutate,
      source: `hook[${i}]`,
      timeoutMs: h.timeout_ms ?? DEFAULT_HOOK_TIMEOUT_MS,
    });
  });
  return specs;
}

/** The argv a hook runs: a shell line through `sh -c`, as the public autoloop runs it. */
export function hookArgv(command: string | string[]): string[] {
  return typeof command === "string" ? ["sh", "-c", command] : command;
}

/** A hook's command as one line (the suspend state's `hookCommand`, `hooks list`). */
export function hookCommandText(command: string | string[]): string {
  return typeof command === "string" ? command : command.map((a) => JSON.stringify(a)).join(" ");
}

/** Just the hook keys of a preset, for `autoloop hooks validate` (the rest may be anything). */
const hookDeclarationSchema = z.looseObject({
  hooks: z.optional(legacyHooksSchema),
  hook: z.optional(z.array(hookEntrySchema)),
});

/** One problem with one `[[hook]]` (or `[hooks]`) key: the public autoloop's error shape. */
export interface HookProblem {
  /** The `[[hook]]` entry's index; -1 for `[hooks]`. */
  index: number;
  field: string;
  value: unknown;
  message: string;
}

/** What is wrong with a preset file's hook keys; [] when they load. */
export function hookProblems(file: string, raw: Record<string, unknown>): HookProblem[] {
  const parsed = hookDeclarationSchema.safeParse(raw);
  if (parsed.success) return [];
  const problems = schemaProblems(file, hookDeclarationSchema, parsed.error, raw);
  return problems.map((p) => {
    const { field } = p;
    const message = formatProblem(p);
    const m = /^hook\[(\d+)\]\.?(.*)$/.exec(field);
    const index = m ? Number(m[1]) : -1;
    const key = m ? m[2] || "hook" : field.replace(/^hooks\.?/, "") || "hooks";
    return { index, field: key, value: valueAt(raw, field), message };
  });
}

function valueAt(raw: Record<string, unknown>, field: string): unknown {
  let node: unknown = raw;
  for (const part of field.split(/[.[\]]/).filter((p) => p !== "")) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}
