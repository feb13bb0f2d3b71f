// The environment handed to the agent process (docs/formats.md, "Agent environment").
import { OPERATOR_DIR_ENV } from "../control/private-run.js";
import type { Preset } from "../preset/preset.js";
import type { RunPaths } from "../run-paths.js";

/** Larger prompts stay in AUTOLOOP_PROMPT_PATH only: one env string is capped at 128 KiB on Linux. */
const MAX_PROMPT_ENV_BYTES = 96 * 1024;

export interface IterationEnvInput {
  base: NodeJS.ProcessEnv;
  preset: Preset;
  paths: RunPaths;
  runId: string;
  iteration: number;
  recentEvent: string;
  allowedRoles: readonly string[];
  allowedEvents: readonly string[];
  prompt: string;
}

/** Values that stay the same for the whole run (also bound into the event tool). */
export function runBoundEnv(
  preset: Preset,
  paths: RunPaths,
  runId: string,
): Record<string, string> {
  const ev = preset.config.event_loop;
  const { gates } = preset.topology;
  return {
    ...(gates.length > 0 && { AUTOLOOP_GATES: JSON.stringify(gates) }),
    ...(preset.config.parallel.enabled && {
      AUTOLOOP_PARALLEL_MAX_BRANCHES: String(preset.config.parallel.max_branches),
    }),
    AUTOLOOP_RUN_ID: runId,
    AUTOLOOP_PROJECT_DIR: paths.workDir,
    AUTOLOOP_STATE_DIR: paths.stateDir,
    AUTOLOOP_JOURNAL_FILE: paths.journalFile,
    AUTOLOOP_TASKS_FILE: paths.tasksFile,
    AUTOLOOP_MEMORY_FILE: paths.projectMemoryFile,
    AUTOLOOP_COMPLETION_EVENT: ev.completion_event,
    AUTOLOOP_ASK_EVENT: ev.ask_event,
  };
}

export function iterationEnv(input: IterationEnvInput): NodeJS.ProcessEnv {
  const ev = input.preset.config.event_loop;
  const env: NodeJS.ProcessEnv = {
    ...input.base,
    ...input.preset.config.backend.env,
    ...runBoundEnv(input.preset, input.paths, input.runId),
    AUTOLOOP_ITERATION: String(input.iteration),
    AUTOLOOP_BIN: input.paths.toolPath,
    AUTOLOOP_COMPLETION_PROMISE: ev.completion_promise,
    AUTOLOOP_REQUIRED_EVENTS: ev.required_events.join(","),
    AUTOLOOP_RECENT_EVENT: input.recentEvent,
    AUTOLOOP_ALLOWED_ROLES: input.allowedRoles.join(","),
    AUTOLOOP_ALLOWED_EVENTS: input.allowedEvents.join(","),
    AUTOLOOP_PROMPT_PATH: input.paths.promptPath,
  };
  // Where the operator's requests and the run's launch record live is not the agent's business.
  delete env[OPERATOR_DIR_ENV];
  // No environment string can hold a NUL: a prompt with one (from memory, a task, an
  // objective) stays in AUTOLOOP_PROMPT_PATH only, like one too large.
  if (Buffer.byteLength(input.prompt) <= MAX_PROMPT_ENV_BYTES && !input.prompt.includes("\0"))
    env.AUTOLOOP_PROMPT = input.prompt;
  else delete env.AUTOLOOP_PROMPT;
  return env;
}
