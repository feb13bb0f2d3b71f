// The hook stage: a phase's hooks in declaration order, each journaled (`hook.output`), and a
// failure handled by the hook's `on_error`, as the public autoloop does: `warn` goes on,
// `block` stops the run (`error`), `suspend` records the suspend state in the run's private
// folder, journals `hook.suspend` and stops the run (`suspended`) until `autoloop resume`.
import type { AgentReaper } from "../agents/reaper.js";
import { writeSuspendState } from "../control/suspend-state.js";
import { type HookPhase, type HookSpec, hookCommandText, hookSpecs } from "../preset/hooks.js";
import { secretsRedactor } from "../run-secrets.js";
import { gitHead, type HookMoment, type HookRun, hookEnv, runHook } from "./hook-run.js";
import type { Terminal } from "./judge.js";
import { RunJournal } from "./run-journal.js";
import { interruptedStop, type Run } from "./run-state.js";

/**
 * Where the stage writes (the run's journal and reaper, or post_run's own after the finish),
 * and whether the run has already ended, when a failure can only be a warning.
 */
export interface HookOutlet {
  journal: RunJournal;
  reaper: AgentReaper | undefined;
  ended: boolean;
}

/** The phase's hooks; the run's end when one of them ends it. */
export async function hookStage(
  run: Run,
  phase: HookPhase,
  moment: HookMoment,
  outlet: HookOutlet = { journal: run.journal, reaper: run.reaper, ended: false },
): Promise<Terminal | undefined> {
  const specs = phaseHooks(run, phase);
  if (specs.length === 0) return undefined;
  const env = hookEnv(run, moment);
  for (const spec of specs) {
    const ran = await runHook(run, spec, env, outlet.reaper);
    journalOutput(outlet.journal, spec, moment, ran);
    if (ran.kind === "interrupted") return interruptedStop(run);
    if (ran.kind === "ok") continue;
    const ended = onFailure(run, spec, moment, ran.detail, outlet);
    if (ended !== undefined) return ended;
  }
  return undefined;
}

export function phaseHooks(run: Run, phase: HookPhase): HookSpec[] {
  return hookSpecs(run.preset.config).filter((s) => s.phase === phase);
}

/** An iteration's moment: its number, and git's HEAD before it when a hook of it will run. */
export function iterationMoment(run: Run, iteration: number): HookMoment {
  const hooked = phaseHooks(run, "pre_iteration").length + phaseHooks(run, "post_iteration").length;
  return hooked === 0 ? { iteration } : { iteration, gitShaBefore: gitHead(run.agentDir) };
}

/** post_iteration's hooks, with git's HEAD after the iteration; after a terminal, warnings only. */
export function postIterationStage(
  run: Run,
  moment: HookMoment,
  routed: Terminal | undefined,
): Promise<Terminal | undefined> {
  if (phaseHooks(run, "post_iteration").length === 0) return Promise.resolve(undefined);
  const after = { ...moment, gitShaAfter: gitHead(run.agentDir) };
  return hookStage(run, "post_iteration", after, {
    journal: run.journal,
    reaper: run.reaper,
    ended: routed !== undefined,
  });
}

/**
 * post_run's hooks, after the run's terminal record (the public order), with a journal of
 * their own: the run's is closed by then. AUTOLOOP_STOP_REASON is "completed" for a completion.
 */
export async function postRunStage(run: Run, ended: Terminal): Promise<void> {
  if (phaseHooks(run, "post_run").length === 0) return;
  // Stopped by a signal (the daemon's stop or timeout, a person's Ctrl-C): the run is to end now.
  if (run.opts.signal.aborted) {
    run.progress("post_run hooks not run: the run was interrupted");
    return;
  }
  const journal = new RunJournal(
    run.paths.journalFile,
    run.runId,
    secretsRedactor(run.opts.secretEnv),
  );
  try {
    const stopReason = ended.complete ? "completed" : ended.reason;
    await hookStage(run, "post_run", { stopReason }, { journal, reaper: undefined, ended: true });
  } finally {
    journal.close();
  }
}

/** The public record: `hook`, `exit_code`, `output`; then ours, when it timed out. */
function journalOutput(journal: RunJournal, spec: HookSpec, moment: HookMoment, ran: HookRun) {
  const exitCode = ran.kind === "ok" ? 0 : ran.kind === "failed" ? ran.exitCode : -1;
  journal.system("hook.output", moment.iteration, {
    hook: spec.phase,
    exit_code: exitCode,
    output: ran.output,
    ...(ran.kind === "failed" && ran.timedOut && { timed_out: true }),
  });
}

/** A failed hook's `on_error`; once the run has ended, every failure is only a warning. */
function onFailure(
  run: Run,
  spec: HookSpec,
  moment: HookMoment,
  detail: string,
  outlet: HookOutlet,
): Terminal | undefined {
  const policy = outlet.ended ? "warn" : spec.onError;
  if (policy === "warn") {
    run.progress(`warning: ${detail}`);
    return undefined;
  }
  if (policy === "block") {
    run.progress(`hook ${spec.phase} blocked the run: ${detail}`);
    return {
      complete: false,
      reason: "error",
      fields: {
        completed_iterations: String(run.state.completed),
        detail: `Aborting run: ${detail}`,
      },
    };
  }
  return suspend(run, spec, moment, detail, outlet.journal);
}

/** Where a resumed run goes on: the public autoloop's rule per phase. */
export function resumeIterationOf(phase: HookPhase, iteration: number): number {
  if (phase === "pre_run") return 1;
  if (phase === "pre_iteration" || phase === "pre_emit") return iteration;
  return iteration + 1;
}

function suspend(
  run: Run,
  spec: HookSpec,
  moment: HookMoment,
  detail: string,
  journal: RunJournal,
): Terminal {
  const iteration = moment.iteration ?? 0;
  const resumeIteration = resumeIterationOf(spec.phase, iteration);
  const hookCommand = hookCommandText(spec.command);
  try {
    writeSuspendState(run.privateRun, {
      runId: run.runId,
      phase: spec.phase,
      iteration,
      reason: detail,
      hookCommand,
      createdAt: new Date().toISOString(),
      resumeIteration,
    });
  } catch (err) {
    run.progress(
      `warning: the suspend state cannot be written in ${run.privateRun.dir} (${(err as Error).message}): autoloop resume goes on as after any stop`,
    );
  }
  journal.system("hook.suspend", moment.iteration || undefined, {
    phase: spec.phase,
    reason: detail,
    hook_command: hookCommand,
    resume_iteration: String(resumeIteration),
  });
  run.progress(
    `hook ${spec.phase} suspended the run: ${detail}; resume it with: autoloop resume ${run.runId}`,
  );
  return {
    complete: false,
    reason: "suspended",
    fields: { iteration: String(iteration), detail },
  };
}
