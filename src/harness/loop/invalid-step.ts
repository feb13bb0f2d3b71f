// The routing check of the route stage. The event tool refuses an event the iteration's roles
// may not emit; one that reached the journal around it (appended by hand, or through a tool
// whose environment the agent changed) is refused here, after the turn, as the public autoloop
// does: `event.invalid` is journaled and the event counts for nothing (no route, no completion).
import type { IterationRouting } from "../run-view.js";
import type { Emitted } from "./record-step.js";
import type { Run } from "./run-state.js";

/** The iteration's emits its routing allowed; each refused one journaled as `event.invalid`. */
export function invalidStep(run: Run, iteration: number, emitted: Emitted): Emitted {
  const refused = run.view.refusedRoutes.splice(0);
  if (refused.length === 0) return emitted;
  for (const { record, routing } of refused) {
    journalInvalid(run, iteration, routing, record.topic, "route");
    run.progress(
      `iteration ${iteration}: ${record.topic} is not allowed after ${routing.recentEvent} (not through the event tool); event.invalid journaled instead`,
    );
  }
  run.view.refresh();
  const records = new Set<unknown>(refused.map((r) => r.record));
  return emitted.filter((r) => !records.has(r));
}

/** `event.invalid` in the event tool's fields and order; `via` (ours) when the route stage refused it. */
export function journalInvalid(
  run: Run,
  iteration: number,
  routing: IterationRouting,
  topic: string,
  via?: "route",
): void {
  run.journal.system("event.invalid", iteration, {
    recent_event: routing.recentEvent,
    emitted: topic,
    suggested_roles: routing.roles.join(","),
    allowed_events: routing.allowed.join(","),
    ...(via && { via }),
  });
}
