// The review stage: before some iterations (the cadence), the metareview's own agent call,
// then its verdict routed: stop at an UNKNOWN, complete at EXIT or TAKEOVER (through the
// completion gate), a new objective at REDIRECT. Its spend and time count like an iteration's.
import { costLeft } from "./budget.js";
import { completionGate, type Terminal } from "./judge.js";
import { redirectedObjective, reviewBefore, runMetareview, type Verdict } from "./metareview.js";
import { scratchpad } from "./prompt.js";
import {
  agentBaseEnv,
  countUsage,
  interruptedStop,
  journalInterrupt,
  openTaskIds,
  overBudget,
  type Run,
  runtimeStop,
} from "./run-state.js";

/** Runs the metareview due before `iteration`, if one is; a terminal when the run ends there. */
export async function reviewStage(run: Run, iteration: number): Promise<Terminal | undefined> {
  if (!reviewBefore(iteration, run.cadence, run.maxIterations)) return undefined;
  const { opts, state } = run;
  const reviewed = await runMetareview({
    preset: run.preset,
    paths: run.paths,
    runId: run.runId,
    iteration,
    view: run.view,
    tasks: run.tasks.view(),
    scratchpad: scratchpad(state.history),
    cwd: run.agentDir,
    baseEnv: agentBaseEnv(run),
    launch: run.launch,
    reaper: run.reaper,
    // `control interrupt` (or guidance that interrupts) stops the review as it stops a turn.
    signal: run.turns.begin(opts.signal),
    costLeft: run.agent.agent.spendCap ? costLeft(state.spend, run.ev) : undefined,
    system: run.journal.system,
    progress: run.progress,
  });
  const stoppedBy = run.turns.end(opts.signal);
  state.reviews++;
  countUsage(run, iteration, reviewed.usage, `the metareview before iteration ${iteration}`);
  if (opts.signal.aborted) return interruptedStop(run);
  // The operator stopped the review: no verdict, and iteration N goes on.
  if (stoppedBy !== undefined) journalInterrupt(run, iteration, stoppedBy);
  const routed = routeVerdict(run, iteration, reviewed.verdict, stoppedBy === undefined);
  if (routed !== undefined) return routed;
  const stop = overBudget(run) ?? runtimeStop(run);
  if (stop !== undefined) return stop;
  run.inbox.drain();
  run.view.refresh();
  return undefined;
}

/** What the verdict does to the run; a terminal when it ends it. */
function routeVerdict(
  run: Run,
  iteration: number,
  verdict: Verdict,
  heard: boolean,
): Terminal | undefined {
  const { ev, view, state } = run;
  const review = run.preset.config.review!;
  if (heard && verdict.verdict === "UNKNOWN" && review.on_error !== "continue") {
    // Ended at the review's word: not a completion, the objective was not shown to be met.
    const fields = { iteration: String(iteration), detail: verdict.reasoning };
    const reason = review.on_error === "exit" ? "verdict_unknown" : "review_unknown";
    return { complete: false, reason, fields, at: iteration };
  }
  if (verdict.verdict === "EXIT" || verdict.verdict === "TAKEOVER") {
    // A completion like any other: the gate (open tasks, required events) holds it back.
    const held = completionGate(() => openTaskIds(run), ev.required_events, view.seenTopics);
    const reason = verdict.verdict === "EXIT" ? "verdict_exit" : "verdict_takeover";
    if (held === undefined) return { complete: true, reason, at: iteration };
    if ("openTasks" in held)
      run.journal.system("task.gate", iteration, {
        blocked_topic: ev.completion_event,
        open_tasks: held.openTasks.join(","),
        via: "metareview",
      });
    else state.completionNote = held.note;
    view.refresh();
  }
  if (verdict.verdict === "REDIRECT")
    state.redirected = redirectedObjective(run.paths, run.opts.objective);
  return undefined;
}
