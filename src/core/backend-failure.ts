// Turns an agent that failed (or would fail) into the `loop.stop` it deserves: the reason
// from the CLI's own words, and a `detail` saying what on-call should do (docs/formats.md reasons).
import type { FieldValue } from "../journal/codec.js";
import type { AgentReaper } from "./agent-reaper.js";
import { type AgentAdapter, classifyAgentFailure, missingCommandHint } from "./agents.js";
import { type AgentResult, runAgent } from "./backend.js";

export interface AgentStop {
  reason: string;
  fields: Record<string, FieldValue>;
}

const LOGIN_CHECK_TIMEOUT_MS = 30_000;

function detailText(hint: string | undefined, outputTail: string): string {
  const tail = outputTail.trim();
  if (hint === undefined) return tail;
  return tail === "" ? hint : `${hint}\n\nAgent output:\n${tail}`;
}

/** The stop for an iteration whose agent did not exit 0 (timeouts and interrupts aside). */
export function agentFailureStop(
  agent: AgentAdapter,
  result: Exclude<AgentResult, { kind: "timed_out" | "interrupted" }>,
  outputTail: string,
  ctx: { command: string; env: NodeJS.ProcessEnv; iteration: number },
): AgentStop {
  const fields: Record<string, FieldValue> = {
    iteration: String(ctx.iteration),
    output_tail: outputTail,
  };
  if (result.kind === "spawn_failed") {
    const hint =
      result.code === "ENOENT"
        ? missingCommandHint(agent, ctx.command, ctx.env.PATH ?? "")
        : `could not start ${ctx.command}: ${result.error}`;
    fields.detail = hint;
    return { reason: "backend_failed", fields };
  }
  const failure = classifyAgentFailure(agent, result.exitCode, outputTail);
  fields.detail = detailText(failure.hint, outputTail);
  if (failure.retryAfter !== undefined) fields.retry_after = failure.retryAfter;
  return { reason: failure.reason, fields };
}

export interface LoginRefusal {
  /** The `backend.login_check` record's fields. */
  fields: Record<string, FieldValue>;
  stop: AgentStop;
}

/**
 * Asks a CLI that would otherwise retry the network for minutes (codex) whether it is logged
 * in, before the first iteration; undefined when it is, when a credential variable is set, or
 * when the adapter has no such check.
 */
export async function loginRefusal(input: {
  agent: AgentAdapter;
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  reaper: AgentReaper;
}): Promise<LoginRefusal | undefined> {
  const { agent, env } = input;
  const check = agent.loginCheck;
  if (check === undefined) return undefined;
  if (agent.credentialEnv.some((name) => (env[name] ?? "") !== "")) return undefined;
  const result = await runAgent({
    command: input.command,
    args: check.args,
    promptMode: "stdin",
    prompt: "",
    promptPath: "",
    cwd: input.cwd,
    env,
    timeoutMs: LOGIN_CHECK_TIMEOUT_MS,
    killGraceMs: 1_000,
    signal: input.signal,
    reaper: input.reaper,
  });
  const output = result.kind === "spawn_failed" ? `${result.output}${result.error}` : result.output;
  const exitCode = result.kind === "exited" ? result.exitCode : undefined;
  const fields: Record<string, FieldValue> = {
    command: input.command,
    args: JSON.stringify(check.args),
    exit_code: exitCode === undefined ? "-1" : String(exitCode),
    output: output.slice(-2000),
  };
  if (result.kind === "spawn_failed") {
    return {
      fields,
      stop: agentFailureStop(agent, result, output.slice(-500), {
        command: input.command,
        env,
        iteration: 0,
      }),
    };
  }
  if (!check.loggedOut.test(output)) return undefined;
  const outputTail = output.slice(-500);
  return {
    fields,
    stop: {
      reason: "auth_failed",
      fields: {
        iteration: "0",
        output_tail: outputTail,
        detail: detailText(agent.hints.auth_failed, outputTail),
      },
    },
  };
}
