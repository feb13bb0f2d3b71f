// Turns an agent that failed (or would fail) into the `loop.stop` it deserves: the reason
// from its event stream or the CLI's own words, and a `detail` saying what on-call should do
// (docs/formats.md reasons).
import type { FieldValue } from "../../journal/codec.js";
import { type AgentResult, runAgent } from "./backend.js";
import type { AgentAdapter, AgentFailureReason, FailurePattern } from "./index.js";
import type { AgentReaper } from "./reaper.js";
import type { AgentLaunch } from "./run-as.js";
import type { StreamError } from "./stream.js";

// Phrases every CLI shares (HTTP statuses, provider error types), tried after its own.
const COMMON_FAILURES: readonly FailurePattern[] = [
  {
    reason: "auth_failed",
    pattern:
      /\b(unauthori[sz]ed|authentication[ _](failed|error)|invalid api key|invalid x-api-key|incorrect api key|not logged in|please (run|use) \S*\s*login|401 unauthorized|oauth token (has )?(expired|revoked))/i,
  },
  {
    reason: "quota_exhausted",
    pattern:
      /\b(insufficient[_ ]quota|exceeded your current quota|insufficient (credits|balance)|credit balance is too low|billing (hard )?limit|daily quota)/i,
  },
  {
    reason: "rate_limited",
    pattern:
      /\b(rate[ _-]?limit(ed|_error)?|too many requests|overloaded_error|HTTP 429|status 429|usage limit (reached|exceeded)|hit your (usage )?limit|resource_exhausted|quota exceeded for quota metric)/i,
  },
];

export interface AgentFailure {
  reason: AgentFailureReason;
  /** What on-call should do, when the adapter knows. */
  hint?: string;
  /** When the CLI says when to try again ("in 37s", "at 3pm"), its words. */
  retryAfter?: string;
}

// A sentence ends at a period followed by a space, a bracket or the end ("37.5s." keeps "37.5s").
const END = String.raw`(?:\.(?=\s|\]|\)|$)|\n|·|$)`;
const RETRY_PATTERNS: readonly RegExp[] = [
  new RegExp(`(?:try again|retry) (?:in|after) ([0-9].*?)${END}`, "i"),
  new RegExp(`(?:try again|retry) at (.+?)${END}`, "i"),
  new RegExp(`resets? (?:at |in )?([0-9].*?)${END}`, "i"),
  /usage limit reached\|(\d{9,11})/i,
];

function retryAfterOf(output: string): string | undefined {
  for (const pattern of RETRY_PATTERNS) {
    const match = pattern.exec(output);
    if (match === null) continue;
    const text = match[1]!.trim();
    // Claude's old form carries the reset as epoch seconds.
    if (/^\d{9,11}$/.test(text)) return new Date(Number(text) * 1000).toISOString();
    return text;
  }
  return undefined;
}

/**
 * Why an agent exited non-zero: the error its event stream reported when it has one, else its
 * exit code and the words at the tail of its output.
 */
export function classifyAgentFailure(
  agent: AgentAdapter,
  exitCode: number | undefined,
  outputTail: string,
  streamError?: StreamError,
): AgentFailure {
  let reason: AgentFailureReason =
    streamError?.reason ??
    (exitCode !== undefined ? agent.exitCodes?.[exitCode] : undefined) ??
    "backend_failed";
  if (reason === "backend_failed") {
    const match = [...agent.failures, ...COMMON_FAILURES].find((f) => f.pattern.test(outputTail));
    if (match !== undefined) reason = match.reason;
  }
  const failure: AgentFailure = { reason };
  const specific = agent.failures.find(
    (f) => f.reason === reason && f.hint !== undefined && f.pattern.test(outputTail),
  );
  const hint = reason === "backend_failed" ? undefined : (specific?.hint ?? agent.hints[reason]);
  if (hint !== undefined) failure.hint = hint;
  if (reason === "rate_limited" || reason === "quota_exhausted") {
    const retry = streamError?.retryAfter ?? retryAfterOf(outputTail);
    if (retry !== undefined) failure.retryAfter = retry;
  }
  return failure;
}

/** The message for a CLI that is not installed where the harness looks. */
export function missingCommandHint(agent: AgentAdapter, command: string, path: string): string {
  const fix =
    agent.hints.backend_failed ?? "install it or set backend.command to its absolute path";
  return `command not found: ${command} (searched PATH=${path || "(empty)"}); ${fix}`;
}

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

/**
 * The stop for an iteration whose agent did not exit 0 (timeouts and interrupts aside), or
 * whose event stream reported an error.
 */
export function agentFailureStop(
  agent: AgentAdapter,
  result: Exclude<AgentResult, { kind: "timed_out" | "interrupted" }>,
  outputTail: string,
  ctx: { command: string; env: NodeJS.ProcessEnv; iteration: number; streamError?: StreamError },
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
  const failure = classifyAgentFailure(agent, result.exitCode, outputTail, ctx.streamError);
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
  /** The argv the iterations will run with (a provider chosen there counts as logged in). */
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  reaper: AgentReaper;
  /** `backend.run_as`: the check runs as the agent's user, where its credentials are. */
  launch: AgentLaunch;
}): Promise<LoginRefusal | undefined> {
  const { agent, env } = input;
  const check = agent.loginCheck;
  if (check === undefined) return undefined;
  if (agent.credentialEnv.some((name) => (env[name] ?? "") !== "")) return undefined;
  if (check.skip?.(input.args, env)) return undefined;
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
    launch: input.launch,
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
