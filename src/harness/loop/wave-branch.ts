// One branch of a parallel wave: a run of one iteration in its own branch folder (its own
// journal, tasks and event tool), in the parent's checkout, with the parent's preset, cut
// short by the branch timeout or the parent's stop; then its result, in the public files.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fieldText } from "../../journal/codec.js";
import { readJournal } from "../../journal/reader.js";
import { joinedRoutingBasis } from "../preset/parallel.js";
import type { Preset } from "../preset/preset.js";
import { newRunId } from "../run-id.js";
import { type BudgetLimits, costLeft, NO_SPEND, type RunSpend } from "./budget.js";
import type { Run, RunOptions, RunResult } from "./run-state.js";

/** How a wave starts a branch run: the loop itself, handed in (the loop runs the wave stage). */
export type RunBranch = (opts: RunOptions) => Promise<RunResult>;

export interface BranchSpec {
  waveId: string;
  branchId: string;
  objective: string;
  trigger: string;
  /** The event the branch's first iteration routes from. */
  routingEvent: string;
  roles: string[];
  events: string[];
  dir: string;
}

export interface BranchResult {
  spec: BranchSpec;
  /** The branch run's stop reason; `backend_timeout` past the branch timeout. */
  stopReason: string;
  output: string;
  elapsedMs: number;
  finishedAtMs: number;
  /** What the branch's agent spent, as its run counted it: the parent's budget counts it too. */
  spend: RunSpend;
}

/**
 * Runs one branch; `cancel` (the wave's barrier) stops it with the reason it is aborted with.
 * `branches`: how many run at once in the wave, sharing what is left of the run's budgets.
 */
export async function runBranch(
  run: Run,
  spec: BranchSpec,
  start: RunBranch,
  cancel: AbortSignal,
  branches: number,
): Promise<BranchResult> {
  const { branch_timeout_ms: timeoutMs } = run.preset.config.parallel;
  const prompt = branchPrompt(run, spec);
  mkdirSync(spec.dir, { recursive: true });
  writeFileSync(join(spec.dir, "objective.md"), objectiveText(spec));
  writeFileSync(
    join(spec.dir, "launch.json"),
    `${JSON.stringify(launchRecord(run, spec, prompt))}\n`,
  );
  const started = Date.now();
  // A branch that could not run (its start threw) fails the wave; it never takes the run down.
  const ran = await start(branchOptions(run, spec, prompt, timeoutMs, cancel, branches)).then(
    (result) => ({ kind: "ran" as const, result }),
    (err: unknown) => ({
      kind: "threw" as const,
      detail: err instanceof Error ? err.message : String(err),
    }),
  );
  const finishedAtMs = Date.now();
  const elapsedMs = finishedAtMs - started;
  const branch: BranchResult =
    ran.kind === "threw"
      ? {
          spec,
          stopReason: "branch_process_failed",
          output: ran.detail,
          elapsedMs,
          finishedAtMs,
          spend: NO_SPEND,
        }
      : ranBranch(run, spec, ran.result, { elapsedMs, finishedAtMs, cancel });
  writeFileSync(join(spec.dir, "summary.json"), `${JSON.stringify(summaryRecord(branch))}\n`);
  writeFileSync(join(spec.dir, "result.md"), resultText(branch));
  return branch;
}

function branchOptions(
  run: Run,
  spec: BranchSpec,
  prompt: string,
  timeoutMs: number,
  cancel: AbortSignal,
  branches: number,
): RunOptions {
  return {
    preset: branchPreset(run, timeoutMs, branches),
    objective: prompt,
    runId: newRunId(),
    runIdKnownNew: true,
    trigger: "branch",
    parentRunId: run.runId,
    maxIterations: 1,
    workDir: spec.dir,
    agentDir: run.agentDir,
    // A joined event routes only in the run that joined it: the branch routes from its basis.
    seedEvent:
      spec.routingEvent === "loop.start" ? undefined : joinedRoutingBasis(spec.routingEvent),
    env: run.opts.env,
    ...(run.opts.secretEnv && { secretEnv: run.opts.secretEnv }),
    signal: AbortSignal.any([run.opts.signal, AbortSignal.timeout(timeoutMs), cancel]),
    progress: (line) => run.progress(`[${spec.waveId} ${spec.branchId}] ${line}`),
  };
}

/**
 * How a branch run ended: stopped by the barrier, with its reason; past its timeout (cut short,
 * not stopped by the parent) it timed out.
 */
function ranBranch(
  run: Run,
  spec: BranchSpec,
  result: RunResult,
  ended: { elapsedMs: number; finishedAtMs: number; cancel: AbortSignal },
): BranchResult {
  const { elapsedMs, finishedAtMs, cancel } = ended;
  const { branch_timeout_ms: timeoutMs } = run.preset.config.parallel;
  const stopped = !run.opts.signal.aborted && result.reason === "interrupted";
  const cancelled = stopped && cancel.aborted ? String(cancel.reason) : undefined;
  const timedOut = !run.opts.signal.aborted && (elapsedMs >= timeoutMs || stopped);
  const records = readJournal(result.journalFile).items.filter((r) => r.run === result.runId);
  const finished = records.findLast((r) => r.topic === "iteration.finish" && r.iteration === "1");
  return {
    spec,
    stopReason: cancelled ?? (timedOut ? "backend_timeout" : result.reason),
    output: finished === undefined ? "" : fieldText(finished, "output"),
    elapsedMs,
    finishedAtMs,
    spend: result.spend,
  };
}

/**
 * One branch's budgets: an equal share of what is left of the run's. The branches spend at
 * once, so each given all that is left would let the wave spend that many times over. Pure.
 */
export function branchBudgets(
  spend: RunSpend,
  limits: BudgetLimits,
  branches: number,
): { max_cost_usd: number; max_tokens: number } {
  const share = Math.max(1, branches);
  const cost = costLeft(spend, limits);
  const tokensLeft = Math.max(0, limits.max_tokens - spend.tokens);
  return {
    max_cost_usd: cost === undefined ? 0 : Math.max(cost / share, Number.MIN_VALUE),
    max_tokens: limits.max_tokens > 0 ? Math.max(1, Math.floor(tokensLeft / share)) : 0,
  };
}

/**
 * The parent's preset for one iteration: no metareview, no wave of its own, no worktree, and
 * its share of what is left of the parent's budgets (an agent that can cap its spend is capped).
 */
function branchPreset(run: Run, timeoutMs: number, branches: number): Preset {
  const { preset, ev, state } = run;
  const { review: _none, ...config } = preset.config;
  const isolation =
    config.core.isolation_mode === "worktree" ? "run-scoped" : config.core.isolation_mode;
  return {
    ...preset,
    config: {
      ...config,
      event_loop: {
        ...config.event_loop,
        max_iterations: 1,
        ...branchBudgets(state.spend, ev, branches),
      },
      parallel: { ...config.parallel, enabled: false },
      worktree: { ...config.worktree, enabled: false },
      core: { ...config.core, isolation_mode: isolation },
      backend: { ...config.backend, timeout_ms: Math.min(config.backend.timeout_ms, timeoutMs) },
    },
  };
}

function branchPrompt(run: Run, spec: BranchSpec): string {
  return (
    `Parallel branch objective:\n${spec.objective}\n\n` +
    `Parent objective:\n${run.state.redirected ?? run.opts.objective}\n\n` +
    `Wave trigger: \`${spec.trigger}\`\n` +
    `Branch routing event: \`${spec.routingEvent}\`\n` +
    `Suggested roles: ${spec.roles.join(", ") || "(none)"}\n` +
    `Allowed events: ${spec.events.join(", ") || "(any)"}\n` +
    "Work only on this branch objective. Branch state is isolated; do not assume you can control parent routing directly.\n"
  );
}

function objectiveText(spec: BranchSpec): string {
  return (
    `# Branch Objective\n\nTrigger: \`${spec.trigger}\`\nRouting event: \`${spec.routingEvent}\`\n` +
    `Roles: ${spec.roles.join(", ") || "(none)"}\nAllowed events: ${spec.events.join(", ") || "(any)"}\n\n${spec.objective}\n`
  );
}

/** What was launched, in the public `launch.json`'s key order: a record, never read back. */
function launchRecord(run: Run, spec: BranchSpec, prompt: string): Record<string, string> {
  const { backend, parallel } = run.preset.config;
  return {
    branch_id: spec.branchId,
    objective: spec.objective,
    emitted_topic: spec.trigger,
    routing_event: spec.routingEvent,
    allowed_roles: spec.roles.join(","),
    allowed_events: spec.events.join(","),
    prompt,
    backend_kind: backend.kind,
    backend_provider: "",
    backend_command: run.agent.command,
    backend_args: run.agent.args.join(","),
    backend_prompt_mode: run.agent.promptMode,
    backend_timeout_ms: String(backend.timeout_ms),
    branch_timeout_ms: String(parallel.branch_timeout_ms),
    log_level: "",
    preset_file: run.preset.dir,
  };
}

function summaryRecord(b: BranchResult): Record<string, string> {
  return {
    branch_id: b.spec.branchId,
    objective: b.spec.objective,
    stop_reason: b.stopReason,
    output: b.output,
    routing_event: b.spec.routingEvent,
    allowed_roles: b.spec.roles.join(","),
    allowed_events: b.spec.events.join(","),
    elapsed_ms: String(b.elapsedMs),
    finished_at_ms: String(b.finishedAtMs),
  };
}

function resultText(b: BranchResult): string {
  return (
    `# Branch Result\n\nStop reason: \`${b.stopReason}\`\nElapsed: \`${b.elapsedMs}ms\`\n` +
    `Routing event: \`${b.spec.routingEvent}\`\nAllowed events: ${b.spec.events.join(", ") || "(none)"}\n\n` +
    `## Output\n\n${b.output}\n`
  );
}
