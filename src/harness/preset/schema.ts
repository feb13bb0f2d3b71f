// zod schemas for a preset's `autoloops.toml` and `topology.toml` (docs/formats.md, "Presets").
// zod/mini: `autoloop run` starts once per run, and mini's schemas cost a fraction of
// classic zod's to build and load (the error wording is the same, from the English locale).
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";
import { DURATION_HINT, parseDuration } from "../../util/duration.js";
import { AGENT_IDS, type AgentId } from "../agents/index.js";
import { EVIDENCE_TYPES } from "./evidence.js";
import { hookEntrySchema, legacyHooksSchema } from "./hooks.js";

z.config(en());

const topicName = z
  .string()
  .check(
    z.regex(
      /^[A-Za-z0-9][A-Za-z0-9._:-]*$/,
      'an event topic such as "review.ready" (letters, digits, . _ : -)',
    ),
  );

const int = (min: number, message?: string) => z.int().check(z.gte(min, message));
const strings = () => z._default(z.array(z.string()), []);
const usdPerMillion = (what: string) => {
  const message = `US dollars per million ${what} tokens, 0 or more, such as 3`;
  return z.number({ error: message }).check(z.gte(0, message));
};

/** `max_runtime`: milliseconds, or a duration string such as "30m". */
const durationMs = z.union([
  int(0),
  z.pipe(
    z.string().check(z.refine((text) => parseDuration(text) !== undefined, DURATION_HINT)),
    z.transform((text: string) => parseDuration(text)!),
  ),
]);

const PROFILE_HINT =
  'profiles "repo:<name>" or "user:<name>" (a name of letters, digits, . _ -), comma-separated, such as "repo:strict-review, user:mine"';
const specsIn = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
/** `repo:<name>` or `user:<name>`; the name goes into a path, so it is one plain segment. */
export const isProfileSpec = (spec: string) =>
  /^(repo|user):[A-Za-z0-9][A-Za-z0-9._-]*$/.test(spec) && !spec.includes("..");

/** The public autoloop's truthy setting: anything but false, "false", "0", "" and 0. */
const truthy = z.pipe(
  z.union([z.boolean(), z.string(), z.number()]),
  z.transform(
    (v: boolean | string | number) =>
      v !== false && v !== "false" && v !== "0" && v !== "" && v !== 0,
  ),
);

// Unknown keys are allowed (public autoloop presets carry sections we do not use);
// the keys we read are type-checked.
export const presetConfigSchema = z.looseObject({
  event_loop: z.prefault(
    z.looseObject({
      max_iterations: z._default(int(1), 3),
      completion_event: z._default(topicName, "task.complete"),
      completion_promise: z._default(z.string().check(z.minLength(1)), "LOOP_COMPLETE"),
      required_events: z._default(z.array(topicName), []),
      max_runtime: z.optional(durationMs),
      /** Consecutive identical iterations (same output, same events) that count as stalled; 0 disables. */
      stall_iterations: z._default(int(0), 3),
      /** The run stops (`cost_budget`) once its agents' reported cost reaches this; 0 disables. */
      max_cost_usd: z._default(
        z.number().check(z.gte(0, "a cost in USD, 0 or more (0: no budget)")),
        0,
      ),
      /** The run stops (`token_budget`) once its agents' tokens reach this; 0 disables. */
      max_tokens: z._default(int(0, "a number of tokens, 0 or more (0: no budget)"), 0),
      /** The event an agent asks a human with (`human.ask`); "" turns asking off. */
      ask_event: z._default(z.union([z.literal(""), topicName]), "human.ask"),
      /**
       * How long a run waits for an answer (milliseconds, or a duration such as "5m"); unset:
       * 5 minutes, or 30 for a scheduled run (on-call needs time to see the page).
       */
      ask_timeout: z.optional(durationMs),
      /** How often the waiting run looks for an answer, in milliseconds. */
      ask_poll_ms: z._default(int(1, "milliseconds, 1 or more (500 by default)"), 500),
    }),
    {},
  ),
  backend: z.looseObject({
    kind: z._default(z.literal("command"), "command"),
    command: z.string().check(z.minLength(1, 'the agent CLI to run, e.g. "claude"')),
    /** Which CLI grammar to use; by default the command's file name picks it ("command" otherwise). */
    agent: z.optional(z.enum(AGENT_IDS as [AgentId, ...AgentId[]])),
    args: strings(),
    /** The model, passed with the CLI's own flag (claude, codex, gemini; a command has none). */
    model: z.optional(z.string().check(z.minLength(1, 'a model id such as "opus"'))),
    /** Args for one agent only, so switching `backend.command` never passes another CLI's flags. */
    agent_args: z.prefault(
      z.strictObject(
        Object.fromEntries(AGENT_IDS.map((id) => [id, z.optional(z.array(z.string()))])) as {
          [id in AgentId]: z.ZodMiniOptional<z.ZodMiniArray<z.ZodMiniString>>;
        },
      ),
      {},
    ),
    /** Unset: the agent's own default (stdin for claude, codex and gemini; arg for a plain command). */
    prompt_mode: z.optional(z.enum(["arg", "stdin", "file"])),
    timeout_ms: z._default(int(1), 300_000),
    /** Time between SIGTERM and SIGKILL when an agent is timed out or interrupted. */
    kill_grace_ms: z._default(int(0), 5_000),
    env: z._default(
      z.record(
        z.string(),
        z.string().check(z.refine((v) => !v.includes("\0"), "a value without NUL characters")),
      ),
      {},
    ),
    /** The user (`name` or uid, optional `:group`) the agent runs as (run-as.ts); unset: the harness's. */
    run_as: z.optional(
      z.pipe(
        z.union([z.string(), z.int().check(z.gte(1))]),
        z.transform((v: string | number) => String(v)),
      ),
    ),
  }),
  /**
   * The metareview (docs/formats.md, "Metareview"): a hygiene pass of its own agent call
   * before some iterations. Off unless the preset has a `[review]` table; unset keys fall
   * back to `backend.*` as in the public autoloop.
   */
  review: z.optional(
    z.looseObject({
      /** The public rule: on unless false, "false", "0", "" or 0. */
      enabled: z._default(truthy, true),
      /** Before every Nth iteration; 0 or less: the topology's role count (1 without roles). */
      every_iterations: z._default(z.int(), 0),
      /** Also review before iteration 2. */
      adversarial_first: z._default(truthy, true),
      kind: z.optional(z.literal("command")),
      command: z.optional(z.string().check(z.minLength(1, "the review's agent CLI"))),
      /** A list, or the public autoloop's comma-separated string. */
      args: z.optional(
        z.union([
          z.array(z.string()),
          z.pipe(
            z.string(),
            z.transform((text: string) =>
              text
                .split(",")
                .map((s) => s.trim())
                .filter((s) => s !== ""),
            ),
          ),
        ]),
      ),
      prompt_mode: z.optional(z.enum(["arg", "stdin", "file"])),
      timeout_ms: z._default(int(1), 300_000),
      prompt: z._default(z.string(), ""),
      prompt_file: z._default(z.string(), "metareview.md"),
      /** An UNKNOWN verdict: hold (stop the run), exit (complete it) or continue. */
      on_error: z._default(
        z.pipe(
          z.string(),
          z.transform((text: string) => {
            const v = text.trim().toLowerCase();
            return v === "exit" || v === "continue" ? v : "hold";
          }),
        ),
        "hold",
      ),
      /** A verdict less sure than this is UNKNOWN; 0 turns the check off. */
      min_confidence: z._default(z.number(), 0.5),
    }),
  ),
  /**
   * Profiles on by default (docs/formats.md, "Profiles"): the reference's comma-separated
   * string of `repo:<name>`/`user:<name>` specs, or a list of them.
   */
  profiles: z.prefault(
    z.looseObject({
      default: z._default(
        z.pipe(
          z.union([
            z.string().check(z.refine((text) => specsIn(text).every(isProfileSpec), PROFILE_HINT)),
            z.array(z.string().check(z.refine(isProfileSpec, PROFILE_HINT))),
          ]),
          z.transform((v: string | string[]) => (Array.isArray(v) ? v : specsIn(v))),
        ),
        [],
      ),
    }),
    {},
  ),
  /**
   * Dynamic chains (docs/dynamic-chains.md): the presets a run's `chain.spawn` may name, and
   * how far a spawned lineage may go. No `presets`: the run spawns nothing.
   */
  chain_spawn: z.prefault(
    z.looseObject({
      presets: z._default(
        z.array(
          z
            .string()
            .check(
              z.regex(
                /^[a-z0-9][a-z0-9._-]*$/,
                'a preset name such as "review" (lower-case letters, digits, . _ -; no path)',
              ),
            ),
        ),
        [],
      ),
      max_depth: z.optional(int(1, "1 or more (a spawn of a spawn is depth 2)")),
      max_children: z.optional(int(1, "1 or more (chains one run may spawn)")),
    }),
    {},
  ),
  /**
   * Structured parallel waves (docs/formats.md, "Parallel waves"): an agent's
   * `explore.parallel` or `<allowed-event>.parallel` runs its payload's branch objectives
   * as branch runs at once. Off unless enabled.
   */
  parallel: z.prefault(
    z.looseObject({
      enabled: z._default(truthy, false),
      /** The most objectives one trigger may list (all of them run at once). */
      max_branches: z._default(int(1, "a number of branches, 1 or more (3 by default)"), 3),
      /** Each branch's wall-clock limit, in milliseconds. */
      branch_timeout_ms: z._default(int(1, "milliseconds, 1 or more (180000 by default)"), 180_000),
      /**
       * When a wave joins (the public `parallel.aggregate.*`): every branch (`wait_for_all`),
       * the first that succeeds (`first_success`), or what ended by `timeout_ms` (`timeout`).
       */
      aggregate: z.prefault(
        z.strictObject({
          mode: z._default(z.enum(["wait_for_all", "first_success", "timeout"]), "wait_for_all"),
          /** The wave's wall-clock limit in `timeout` mode; 0: none (it waits for all). */
          timeout_ms: z._default(int(0, "milliseconds, 0 or more (0: no limit)"), 0),
        }),
        {},
      ),
    }),
    {},
  ),
  /** USD per million tokens by model id (or id prefix), over the shipped price table. */
  prices: z._default(
    z.record(
      z.string().check(z.minLength(1, 'a model id such as "gpt-5-codex"')),
      z.strictObject(
        {
          input: usdPerMillion("input"),
          output: usdPerMillion("output"),
          cache_read: z.optional(usdPerMillion("cache read")),
          cache_write: z.optional(usdPerMillion("cache write")),
        },
        {
          error:
            'a table of one model\'s prices, named by its model id: [prices."gpt-5-codex"] with input = 1.25 and output = 10 (US dollars per million tokens)',
        },
      ),
    ),
    {},
  ),
  /** Lifecycle hooks (hooks.ts); absent stays absent, so a preset without them digests as before. */
  /**
   * `[acceptance]`: commands a claimed completion must pass before it is accepted (the
   * acceptance gate, accept-step.ts), also what `autoloop verify` runs again; lists may be
   * the public autoloop's comma-separated text.
   */
  acceptance: z.optional(
    z.looseObject({
      verify_cmds: z.optional(z.union([z.array(z.string()), z.string()])),
      verify_cmd: z.optional(z.string()),
      criteria: z.optional(z.union([z.array(z.string()), z.string()])),
      timeout: z.optional(durationMs),
    }),
  ),
  hooks: z.optional(legacyHooksSchema),
  hook: z.optional(z.array(hookEntrySchema)),
  tasks: z.prefault(
    z.looseObject({
      prompt_budget_chars: z._default(z.int(), 4000),
      /**
       * `"issue"`: a run the scheduler launched with an issue starts with the task list
       * as its tasks, and the boxes of those it completes are ticked (scheduler/launch/issue-tasks.ts).
       */
      sync: z.optional(z.enum(["issue"])),
    }),
    {},
  ),
  /** Loop memory in the prompt: at most this many characters (0: no limit). */
  memory: z.prefault(z.looseObject({ prompt_budget_chars: z._default(int(0), 8000) }), {}),
  core: z.prefault(
    z.looseObject({
      journal_file: z._default(z.string().check(z.minLength(1)), ".autoloop/journal.jsonl"),
      tasks_file: z._default(z.string().check(z.minLength(1)), ".autoloop/tasks.jsonl"),
      memory_file: z._default(z.string().check(z.minLength(1)), ".autoloop/memory.jsonl"),
      isolation_mode: z._default(z.enum(["run-scoped", "shared", "worktree"]), "run-scoped"),
    }),
    {},
  ),
  /**
   * Files the agent leaves in the run's state dir that the harness copies into the work dir
   * when the run completes, so a read-only agent can still deliver a report.
   */
  outputs: z.prefault(
    z.looseObject({
      publish: z._default(
        z.array(
          z
            .string()
            .check(
              z.regex(
                /^(?!\.\.?(\/|$))[A-Za-z0-9_.-]+(\/(?!\.\.?(\/|$))[A-Za-z0-9_.-]+)*$/,
                'a path inside the work dir such as "REVIEW.md" (no "..", not absolute)',
              ),
            ),
        ),
        [],
      ),
    }),
    {},
  ),
  /** Worktree isolation (docs: "Worktrees"); `[isolation]` is read as an alias. */
  worktree: z.prefault(
    z.looseObject({
      enabled: z._default(z.boolean(), false),
      branch_prefix: z._default(
        z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, "a branch name prefix")),
        "autoloop",
      ),
      merge_strategy: z._default(z.enum(["squash", "merge", "rebase"]), "squash"),
      /** Merge the run's branch into its base when the run completes. */
      automerge: z._default(z.boolean(), false),
      /** When the tree folder goes: after a merge (on_success), at the run's end (always), never. */
      cleanup: z._default(z.enum(["on_success", "always", "never"]), "on_success"),
      /**
       * How many ended runs keep their worktree and branch (the newest); older ones are
       * removed, branch included, when a run ends. 0 keeps every one.
       */
      keep: z._default(int(0, "0 (keep every one) or more"), 10),
    }),
    {},
  ),
});

export type PresetConfig = z.output<typeof presetConfigSchema>;

const promptMode = z.enum(["arg", "stdin", "file"]);

/**
 * A `[[role]]`. The `backend_*` overrides this harness runs (command, model, kind, args,
 * prompt mode, timeout) are typed; the reference's others (`backend_provider`,
 * `backend_agent`, `backend_profile`) and any other key are named in a warning by compat.ts,
 * never refused.
 */
export const roleSchema = z.looseObject({
  id: z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, "a role id (letters, digits, _ -)")),
  emits: z._default(z.array(topicName), []),
  prompt: z.optional(z.string()),
  prompt_file: z.optional(z.string()),
  description: z.optional(z.string()),
  backend_command: z.optional(z.string().check(z.minLength(1, "the role's agent CLI"))),
  backend_model: z.optional(z.string().check(z.minLength(1, 'a model id such as "opus"'))),
  /** `claude`, `codex` or `gemini` selects that CLI; the public autoloop's others are warned of. */
  backend_kind: z.optional(z.string()),
  backend_args: z.optional(z.array(z.string())),
  backend_prompt_mode: z.optional(promptMode),
  backend_timeout_ms: z.optional(int(1, "milliseconds, 1 or more")),
});

/** One typed requirement of a gate (`evidence = [{ key = "coverage", type = "coverage", min = 80 }]`). */
const evidenceSchema = z.looseObject({
  key: z.string().check(z.regex(/^[A-Za-z_][\w.-]*$/, 'an evidence key such as "tests"')),
  type: z._default(z.enum(EVIDENCE_TYPES), "generic"),
  min: z.optional(z.number()),
  max: z.optional(z.number()),
  status: z.optional(z.string().check(z.minLength(1, 'a status word such as "passed"'))),
});

/** `[[gate]]`: an event that needs evidence in its payload (docs/formats.md, "Evidence gates"). */
export const gateSchema = z.looseObject({
  event: topicName,
  requires: z._default(
    z.array(z.string().check(z.regex(/^[A-Za-z_][\w.-]*$/, 'an evidence key such as "tests"'))),
    [],
  ),
  blocked: z.optional(topicName),
  failed: z.optional(topicName),
  evidence: z._default(z.array(evidenceSchema), []),
});

export const topologySchema = z.looseObject({
  name: z.optional(z.string()),
  completion: z.optional(topicName),
  role: z._default(z.array(roleSchema), []),
  handoff: z._default(z.record(z.string(), z.array(z.string())), {}),
  gate: z._default(z.array(gateSchema), []),
});

export type TopologyFile = z.output<typeof topologySchema>;
