// The hook stage: a phase's hooks in declaration order, each journaled (`hook.output`), and a
// failure handled by the hook's `on_error`, as the public autoloop does: `warn` goes on,
// `block` stops the run (`error`), `suspend` records the suspend state in the run's private
// folder, journals `hook.suspend` and stops the run (`suspended`) until `autoloop resume`.
import type { AgentReaper } from "../agents/reaper.js";
import { writeSuspendState } from "../control/suspend-state.js";
import { type HookMutation, MUTATION_PHASE, parseMutation } from "../preset/hook-mutation.js";
import { type HookPhase, type HookSpec, hookCommandText, hookSpecs } from "../preset/hooks.js";
import { secretsRedactor } from "../run-secrets.js";
import {
  gitHead,
  type HookMoment,
  type HookRun,
  hookEnv,
  MAX_OUTPUT_BYTES,
  runHook,
} from "./hook-run.js";
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
  return (await phaseStage(run, phase, moment, outlet)).ended;
}

/** What a phase's hooks came to: the run's end, or the last mutation one of them asked for. */
export interface PhaseOutcome {
  ended?: Terminal;
  mutation?: HookMutation;
  /** pre_emit: a `block` hook failed, so the event is refused (the run goes on). */
  blocked?: string;
}

/**
 * The phase's hooks in order. Each reads the phase's original input; when several ask for a
 * mutation the last one wins (the public rule), and a failed hook asks for none.
 */
export async function phaseStage(
  run: Run,
  phase: HookPhase,
  moment: HookMoment,
  outlet: HookOutlet = { journal: run.journal, reaper: run.reaper, ended: false },
): Promise<PhaseOutcome> {
  const specs = phaseHooks(run, phase);
  if (specs.length === 0) return {};
  const env = hookEnv(run, moment);
  let mutation: HookMutation | undefined;
  for (const spec of specs) {
    const ran = await runHook(run, spec, env, outlet.reaper);
    const asked = ran.kind === "ok" ? mutationOf(run, spec, ran) : undefined;
    journalOutput(outlet.journal, spec, moment, ran, asked);
    mutation = asked ?? mutation;
    if (ran.kind === "interrupted") return { ended: interruptedStop(run) };
    if (ran.kind === "ok") continue;
    if (phase === "pre_emit" && spec.onError === "block") {
      run.progress(`hook pre_emit refused ${moment.event?.topic}: ${ran.detail}`);
      return { blocked: ran.detail };
    }
    const ended = onFailure(run, spec, moment, ran.detail, outlet);
    if (ended !== undefined) return { ended };
  }
  return mutation === undefined ? {} : { mutation };
}

/** The mutation a hook's stdout asks for, in the one phase its kind rewrites and within bounds. */
function mutationOf(
  run: Run,
  spec: HookSpec,
  ran: Extract<HookRun, { kind: "ok" }>,
): HookMutation | undefined {
  if (spec.mutate === "none" || MUTATION_PHASE[spec.mutate] !== spec.phase) return undefined;
  const mutation = parseMutation(ran.stdout, spec.mutate);
  if (mutation === undefined || !ran.stdoutCut) return mutation;
  run.progress(
    `warning: hook ${spec.phase} (${spec.source}) wrote more than ${MAX_OUTPUT_BYTES} characters: its ${spec.mutate} mutation is ignored`,
  );
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

/** The public record: `hook`, `exit_code`, `output`; then ours: a timeout, a mutation taken. */
function journalOutput(
  journal: RunJournal,
  spec: HookSpec,
  moment: HookMoment,
  ran: HookRun,
  mutation: HookMutation | undefined,
) {
  const exitCode = ran.kind === "ok" ? 0 : ran.kind === "failed" ? ran.exitCode : -1;
  journal.system("hook.output", moment.iteration, {
    hook: spec.phase,
    exit_code: exitCode,
    output: ran.output,
    ...(ran.kind === "failed" && ran.timedOut && { timed_out: true }),
    ...(mutation !== undefined && { mutated: mutation.kind }),
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
