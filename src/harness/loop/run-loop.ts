// The harness loop: a run opened, then each iteration's stages in turn (review → prompt →
// agent call → record → route: judge, ask → accept: a claimed completion's gate), until one
// of them ends the run. Every stage is a function of the run (`run-state.ts`); a new step of
// an iteration is one more line here.
import { acceptStage } from "./accept-step.js";
import { agentStage } from "./agent-step.js";
import { emitHookStage } from "./emit-hook-step.js";
import { finish } from "./finish.js";
import { preIterationStage } from "./hook-prompt.js";
import { hookStage, iterationMoment, postIterationStage, postRunStage } from "./hook-step.js";
import type { Terminal } from "./judge.js";
import { promptStage } from "./prompt-step.js";
import { recordStage } from "./record-step.js";
import { reviewStage } from "./review-step.js";
import { routeStage } from "./route-step.js";
import {
  interruptedStop,
  type Run,
  type RunOptions,
  type RunResult,
  runtimeStop,
} from "./run-state.js";
import { loginStop, openRun } from "./start.js";
import { waveStage } from "./wave-step.js";

export type { RunOptions, RunResult } from "./run-state.js";

export async function runLoop(opts: RunOptions): Promise<RunResult> {
  const run = openRun(opts);
  const ended = await runToEnd(run, opts.resume?.fromIteration ?? 1);
  const result = finish(run, ended);
  await postRunStage(run, ended);
  return result;
}

/** The run from its checks before the first iteration to the terminal that ends it. */
async function runToEnd(run: Run, first: number): Promise<Terminal> {
  const refused = (await loginStop(run)) ?? (await hookStage(run, "pre_run", {}));
  if (refused !== undefined) return refused;
  for (let iteration = first; iteration <= run.maxIterations; iteration++) {
    const ended = await runIteration(run, iteration);
    if (ended !== undefined) return ended;
  }
  const { completed } = run.state;
  return {
    complete: false,
    reason: "max_iterations",
    fields: {
      completed_iterations: String(completed),
      stopped_before_iteration: String(completed + 1),
      max_iterations: String(run.maxIterations),
    },
  };
}

/** One iteration's stages; a terminal when one of them ends the run. */
async function runIteration(run: Run, iteration: number): Promise<Terminal | undefined> {
  const before = beforeIteration(run);
  if (before !== undefined) return before;
  const reviewed = await reviewStage(run, iteration);
  if (reviewed !== undefined) return reviewed;
  const prompted = promptStage(run, iteration);
  // After `iteration.start`, before the agent: where the public autoloop runs it.
  const moment = iterationMoment(run, iteration);
  const held = await preIterationStage(run, moment, prompted);
  if (held.kind === "ended") return held.ended;
  const turn = await agentStage(run, iteration, held.prompted);
  const hooked = await emitHookStage(
    run,
    iteration,
    held.prompted,
    recordStage(run, iteration, turn),
  );
  if (hooked.kind === "ended") return hooked.ended;
  const { emitted } = hooked;
  const waved = await waveStage(run, iteration, held.prompted, emitted, runLoop);
  const routed = waved ?? (await routeStage(run, iteration, turn, emitted));
  const accepted = await acceptStage(run, iteration, routed);
  const after = await postIterationStage(run, moment, accepted);
  return accepted ?? after;
}
/** Before an iteration: a stop already due (a signal, the runtime), then the operator's news. */
function beforeIteration(run: Run): Terminal | undefined {
  if (run.opts.signal.aborted) return interruptedStop(run);
  const overRuntime = runtimeStop(run);
  if (overRuntime !== undefined) return overRuntime;
  run.inbox.drain();
  run.view.refresh();
  return undefined;
}
