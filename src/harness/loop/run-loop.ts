// The harness loop: a run opened, then each iteration's stages in turn (review → prompt →
// agent call → record → route: judge, ask), until one of them ends the run. Every stage is a
// function of the run (`run-state.ts`); a new step of an iteration is one more line here.
import { agentStage } from "./agent-step.js";
import { finish } from "./finish.js";
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
  const refused = await loginStop(run);
  if (refused !== undefined) return finish(run, refused);
  for (
    let iteration = opts.resume?.fromIteration ?? 1;
    iteration <= run.maxIterations;
    iteration++
  ) {
    const ended = await runIteration(run, iteration);
    if (ended !== undefined) return finish(run, ended);
  }
  const { completed } = run.state;
  return finish(run, {
    complete: false,
    reason: "max_iterations",
    fields: {
      completed_iterations: String(completed),
      stopped_before_iteration: String(completed + 1),
      max_iterations: String(run.maxIterations),
    },
  });
}

/** One iteration's stages; a terminal when one of them ends the run. */
async function runIteration(run: Run, iteration: number): Promise<Terminal | undefined> {
  const before = beforeIteration(run);
  if (before !== undefined) return before;
  const reviewed = await reviewStage(run, iteration);
  if (reviewed !== undefined) return reviewed;
  const prompted = promptStage(run, iteration);
  const turn = await agentStage(run, iteration, prompted);
  const emitted = recordStage(run, iteration, turn);
  const waved = await waveStage(run, iteration, prompted, emitted, runLoop);
  return waved ?? routeStage(run, iteration, turn, emitted);
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
