// The route stage: where an iteration leads. Its evidence gates have the first word on what
// the agent emitted (gate-step.ts), then its routing (invalid-step.ts). An interrupted turn
// goes on to the next one (unless it completed or spent the budget); a question to a human
// waits for the answer; otherwise the judge decides (completion, stall, failure) and the
// budget has its say.
import { agentFailureStop } from "../agents/failure.js";
import type { ControlRequest } from "../control/requests.js";
import type { Turn } from "./agent-step.js";
import { askHuman, askTimeoutMs } from "./ask-step.js";
import { gateStep } from "./gate-step.js";
import { invalidStep } from "./invalid-step.js";
import { judgeIteration, type Terminal } from "./judge.js";
import type { Emitted } from "./record-step.js";
import {
  interruptedStop,
  journalInterrupt,
  openTaskIds,
  overBudget,
  type Run,
} from "./run-state.js";

/** A terminal when the run ends after this iteration; undefined: the next one begins. */
export async function routeStage(
  run: Run,
  iteration: number,
  turn: Turn,
  recorded: Emitted,
): Promise<Terminal | undefined> {
  const emitted = invalidStep(run, iteration, gateStep(run, iteration, recorded));
  if (turn.interrupted !== undefined)
    return routeInterrupted(run, iteration, turn.interrupted, emitted);
  const question = askedQuestion(run, turn, emitted);
  if (question !== undefined) return askStage(run, iteration, question);
  return routeJudged(run, iteration, turn, emitted);
}

/** An operator stopped this turn: what the agent did before still counts (a completion, the budget). */
function routeInterrupted(
  run: Run,
  iteration: number,
  by: ControlRequest,
  emitted: Emitted,
): Terminal | undefined {
  journalInterrupt(run, iteration, by);
  if (emitted.some((r) => r.topic === run.ev.completion_event))
    return { complete: true, reason: "completion_event" };
  const stop = overBudget(run);
  if (stop !== undefined) return stop;
  run.progress(`iteration ${iteration} interrupted by the operator; the next one begins`);
  return undefined;
}

/** The question the agent asked a human as its last emit of a turn that went well, if it did. */
function askedQuestion(run: Run, turn: Turn, emitted: Emitted): string | undefined {
  const { result, streamFailed } = turn.call;
  const asked = emitted.at(-1);
  const ok = result.kind === "exited" && result.exitCode === 0 && !streamFailed;
  return run.ev.ask_event !== "" &&
    asked?.topic === run.ev.ask_event &&
    asked.shape === "agent" &&
    ok
    ? asked.payload
    : undefined;
}

/** The ask stage: wait for a human's answer (it reaches the next prompt as guidance). */
async function askStage(
  run: Run,
  iteration: number,
  question: string,
): Promise<Terminal | undefined> {
  const stop = overBudget(run);
  if (stop !== undefined) return stop;
  const answered = await askHuman({
    runId: run.runId,
    timeoutMs: askTimeoutMs(run.preset, run.opts.trigger),
    iteration,
    question,
    preset: run.preset,
    privateRun: run.privateRun,
    signal: run.opts.signal,
    system: run.journal.system,
    guide: (i, text) => run.journal.operator("operator.guidance", i, text, "operator"),
    progress: run.progress,
  });
  return answered === "aborted" ? interruptedStop(run) : undefined;
}

/** The judge's word on the iteration, then the budget's, then the agent's failure's. */
function routeJudged(
  run: Run,
  iteration: number,
  turn: Turn,
  emitted: Emitted,
): Terminal | undefined {
  const { ev, view, state } = run;
  const { result, output, streamFailed, failureTail, said } = turn.call;
  const judged = judgeIteration({
    iteration,
    result:
      result.kind === "exited"
        ? { kind: "exited", exitCode: streamFailed ? 1 : result.exitCode }
        : result,
    output,
    emitted: emitted.map((r) => ({
      topic: r.topic,
      payload: r.shape === "agent" ? r.payload : "",
    })),
    seenTopics: view.seenTopics,
    openTasks: () => openTaskIds(run),
    eventLoop: ev,
    stall: state.stall,
  });
  state.stall = judged.stall;
  state.completionNote = judged.completionNote;
  if (judged.gate !== undefined) {
    run.journal.system("task.gate", iteration, {
      blocked_topic: ev.completion_event,
      open_tasks: judged.gate.openTasks.join(","),
      via: "completion_promise",
    });
    view.refresh();
  }
  if (judged.next !== "continue" && judged.next !== "agent_failed") return judged.next;
  // A spent budget stops the run, whether the agent went on or gave up on it.
  const stop = overBudget(run);
  if (stop !== undefined || judged.next === "continue") return stop;
  if (result.kind !== "exited" && result.kind !== "spawn_failed") return undefined;
  const failed = agentFailureStop(turn.agent.agent, result, failureTail, {
    command: turn.agent.command,
    env: run.opts.env,
    iteration,
    ...(said?.error && { streamError: said.error }),
  });
  return { complete: false, reason: failed.reason, fields: failed.fields };
}
