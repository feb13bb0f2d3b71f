// The agent call stage: `backend.start`, the agent run with the iteration's environment (its
// spend capped by what is left, for a CLI that can cap it), then its usage counted and
// `backend.finish` and `iteration.finish` journaled.
import type { FieldValue } from "../../journal/codec.js";
import { usageFields } from "../agents/prices.js";
import type { ControlRequest } from "../control/requests.js";
import { type AgentCall, callAgent } from "./agent-call.js";
import { iterationEnv } from "./agent-env.js";
import { costLeft } from "./budget.js";
import { tail } from "./judge.js";
import type { Prompted } from "./prompt-step.js";
import { iterationAgent } from "./role-backend.js";
import { agentBaseEnv, countUsage, type Run } from "./run-state.js";

/** Longest agent output kept in one journal field (the tail wins). */
const MAX_JOURNAL_OUTPUT = 64 * 1024;

/** One iteration's agent call, and the operator's request that stopped it, if one did. */
export interface Turn {
  call: AgentCall;
  interrupted: ControlRequest | undefined;
  /** The agent that ran (the role's own, or the run's). */
  agent: Run["agent"];
}

export async function agentStage(run: Run, iteration: number, prompted: Prompted): Promise<Turn> {
  const chosen = iterationAgent(run, prompted.roles);
  const { agent, command, args, promptMode } = chosen.agent;
  const backend = run.preset.config.backend;
  // A CLI that can cap its own spend: one long iteration cannot overshoot what is left by much.
  const left = agent.spendCap ? costLeft(run.state.spend, run.ev) : undefined;
  const callArgs = left === undefined ? args : [...args, ...(agent.spendCap?.(left) ?? [])];
  run.journal.system("backend.start", iteration, {
    backend_kind: backend.kind,
    command,
    args: JSON.stringify(callArgs),
    prompt_mode: promptMode,
    timeout_ms: String(chosen.timeoutMs),
    agent: agent.id,
    ...(chosen.role !== undefined && { role: chosen.role }),
  });
  const env = iterationEnv({
    base: agentBaseEnv(run),
    preset: run.preset,
    paths: run.paths,
    runId: run.runId,
    iteration,
    recentEvent: run.view.recentEvent,
    allowedRoles: prompted.roles,
    allowedEvents: prompted.allowed,
    prompt: prompted.prompt,
  });
  const call = await callAgent({
    agent,
    invocation: {
      command,
      args: callArgs,
      promptMode,
      promptArg: agent.promptArg,
      prompt: prompted.prompt,
      promptPath: run.paths.promptPath,
      reaper: run.reaper,
      cwd: run.agentDir,
      timeoutMs: chosen.timeoutMs,
      killGraceMs: backend.kill_grace_ms,
      signal: run.turns.begin(run.opts.signal),
      env,
      launch: run.launch,
    },
    paths: run.paths,
    progress: run.progress,
  });
  const interrupted = run.turns.end(run.opts.signal);
  journalCall(run, iteration, call);
  run.state.completed = iteration;
  return { call, interrupted, agent: chosen.agent };
}

/** The call's usage (counted in the spend), `backend.finish` and `iteration.finish`. */
function journalCall(run: Run, iteration: number, call: AgentCall): void {
  const { result, output, exitCode } = call;
  const usage: Record<string, FieldValue> | undefined =
    call.usage && usageFields(call.usage, run.preset.config.prices);
  if (usage !== undefined) run.journal.system("backend.usage", iteration, usage);
  countUsage(run, iteration, usage, `iteration ${iteration}`);
  const timedOut = result.kind === "timed_out";
  const journalOutput = tail(output, MAX_JOURNAL_OUTPUT);
  run.journal.system("backend.finish", iteration, {
    exit_code: exitCode,
    timed_out: timedOut,
    output: journalOutput,
  });
  run.journal.system("iteration.finish", iteration, {
    exit_code: exitCode,
    timed_out: timedOut,
    elapsed_s: (result.elapsedMs / 1000).toFixed(3),
    output: journalOutput,
  });
}
