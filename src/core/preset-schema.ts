// zod schemas for a preset's `autoloops.toml` and `topology.toml` (docs/formats.md, "Presets").
import { z } from "zod";
import { DURATION_HINT, parseDuration } from "../util/duration.js";
import { AGENT_IDS, type AgentId } from "./agents.js";

const topicName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]*$/,
    'an event topic such as "review.ready" (letters, digits, . _ : -)',
  );

/** `max_runtime`: milliseconds, or a duration string such as "30m". */
const durationMs = z.union([
  z.number().int().nonnegative(),
  z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined) {
      ctx.addIssue({ code: "custom", message: DURATION_HINT });
      return z.NEVER;
    }
    return ms;
  }),
]);

// Unknown keys are allowed (public autoloop presets carry sections we do not use);
// the keys we read are type-checked.
export const presetConfigSchema = z.looseObject({
  event_loop: z
    .looseObject({
      max_iterations: z.number().int().min(1).default(3),
      completion_event: topicName.default("task.complete"),
      completion_promise: z.string().min(1).default("LOOP_COMPLETE"),
      required_events: z.array(topicName).default([]),
      max_runtime: durationMs.optional(),
      /** Consecutive identical iterations (same output, same events) that count as stalled; 0 disables. */
      stall_iterations: z.number().int().min(0).default(3),
    })
    .prefault({}),
  backend: z.looseObject({
    kind: z.literal("command").default("command"),
    command: z.string().min(1, 'the agent CLI to run, e.g. "claude"'),
    /** Which CLI grammar to use; by default the command's file name picks it ("command" otherwise). */
    agent: z.enum(AGENT_IDS as [AgentId, ...AgentId[]]).optional(),
    args: z.array(z.string()).default([]),
    /** Args for one agent only, so switching `backend.command` never passes another CLI's flags. */
    agent_args: z
      .strictObject({
        claude: z.array(z.string()).optional(),
        codex: z.array(z.string()).optional(),
        gemini: z.array(z.string()).optional(),
        command: z.array(z.string()).optional(),
      })
      .prefault({}),
    /** Unset: the agent's own default (stdin for claude, codex and gemini; arg for a plain command). */
    prompt_mode: z.enum(["arg", "stdin", "file"]).optional(),
    timeout_ms: z.number().int().positive().default(300_000),
    /** Time between SIGTERM and SIGKILL when an agent is timed out or interrupted. */
    kill_grace_ms: z.number().int().nonnegative().default(5_000),
    env: z.record(z.string(), z.string()).default({}),
  }),
  tasks: z.looseObject({ prompt_budget_chars: z.number().int().default(4000) }).prefault({}),
  /** Loop memory in the prompt: at most this many characters (0: no limit). */
  memory: z
    .looseObject({ prompt_budget_chars: z.number().int().min(0).default(8000) })
    .prefault({}),
  core: z
    .looseObject({
      journal_file: z.string().min(1).default(".autoloop/journal.jsonl"),
      tasks_file: z.string().min(1).default(".autoloop/tasks.jsonl"),
      memory_file: z.string().min(1).default(".autoloop/memory.jsonl"),
      isolation_mode: z.enum(["run-scoped", "shared"]).default("run-scoped"),
    })
    .prefault({}),
});

export type PresetConfig = z.output<typeof presetConfigSchema>;

export const roleSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, "a role id (letters, digits, _ -)"),
  emits: z.array(topicName).default([]),
  prompt: z.string().optional(),
  prompt_file: z.string().optional(),
  description: z.string().optional(),
});

export const topologySchema = z.looseObject({
  completion: topicName.optional(),
  role: z.array(roleSchema).default([]),
  handoff: z.record(z.string(), z.array(z.string())).default({}),
});

export type TopologyFile = z.output<typeof topologySchema>;
