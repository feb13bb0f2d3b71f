// The record stage: what the agent did this iteration, read back from the journal (its emits,
// and the completions and gated events refused), kept for the next prompt's scratchpad, the
// registry and the live log.
import { fieldText, journalTimestamp } from "../../journal/codec.js";
import { gateOutcomeTopics } from "../preset/evidence.js";
import { isSystemTopic } from "../run-view.js";
import type { Turn } from "./agent-step.js";
import { tail } from "./judge.js";
import { registryRecord } from "./launch-metadata.js";
import { appendRegistry } from "./registry.js";
import type { Run } from "./run-state.js";

/** The agent's own records of this iteration (its emits), in order. */
export type Emitted = ReturnType<Run["view"]["refresh"]>;

export function recordStage(run: Run, iteration: number, turn: Turn): Emitted {
  const { view, state } = run;
  const { result, output, exitCode } = turn.call;
  const mine = view.refresh();
  const emitted = mine.filter(
    (r) => r.shape === "agent" && r.iteration === String(iteration) && !isSystemTopic(r.topic),
  );
  // A completion the gate refused is no event, but it is what the agent did: say so.
  const refused = mine
    .filter((r) => r.topic === "task.gate" && r.iteration === String(iteration))
    .map((r) => `${fieldText(r, "blocked_topic")} refused (open: ${fieldText(r, "open_tasks")})`);
  // So is an event its evidence gate refused: the gate's event stands in the journal instead.
  const outcomes = gateOutcomeTopics(run.preset.topology.gates);
  const gated = mine
    .filter(
      (r) => r.shape === "system" && outcomes.has(r.topic) && r.iteration === String(iteration),
    )
    .map((r) => `${fieldText(r, "gated_event")} refused (${r.topic})`);
  const did = [...emitted.map((r) => r.topic), ...refused, ...gated];
  state.history.push({ iteration, exitCode, emitted: did, outputTail: tail(output, 400) });
  appendRegistry(
    run.paths.registryFile,
    registryRecord(run.meta, {
      iteration,
      updated_at: journalTimestamp(),
      latest_event: view.recentEvent,
    }),
  );
  const timedOut = result.kind === "timed_out" ? " (timed out)" : "";
  run.progress(
    `iteration ${iteration}/${run.maxIterations}: exit ${exitCode}${timedOut}, emitted ${did.join(", ") || "nothing"} (${(result.elapsedMs / 1000).toFixed(1)}s)`,
  );
  return emitted;
}
