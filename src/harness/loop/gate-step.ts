// The evidence-gate step of the route stage. The event tool refuses an emit without its
// evidence; an event that reached the journal around it (a record appended by hand, another
// harness's tool) is refused here the same way: its gate's `blocked` (or `failed`) event is
// journaled, which routes, and the event itself counts for nothing (no route, no completion).
import { checkGate, gateFor } from "../preset/evidence.js";
import type { Emitted } from "./record-step.js";
import type { Run } from "./run-state.js";

/** The iteration's emits its gates accept; each refused one journaled as its gate's event. */
export function gateStep(run: Run, iteration: number, emitted: Emitted): Emitted {
  const { gates } = run.preset.topology;
  if (gates.length === 0) return emitted;
  const accepted = emitted.filter((record) => {
    const gate = record.shape === "agent" ? gateFor(gates, record.topic) : undefined;
    const verdict =
      gate === undefined || record.shape !== "agent"
        ? undefined
        : checkGate(gate, record.topic, record.payload);
    if (verdict?.kind !== "refused") return true;
    run.journal.system(verdict.topic, iteration, { ...verdict.fields, via: "route" });
    run.progress(
      `iteration ${iteration}: ${record.topic} came without its evidence (not through the event tool); ${verdict.topic} journaled instead`,
    );
    return false;
  });
  if (accepted.length !== emitted.length) run.view.refresh();
  return accepted;
}
