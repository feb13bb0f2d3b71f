// Keeps one incident per alert episode in step with its notifications: firing opens it (or
// notes a resend on the one already open), reminders log to it, resolved closes it.

import { incidentName, incidentPriority } from "./alert-message.js";
import type { Notification } from "./alert-state.js";
import type { IncidentStore } from "./incidents.js";
import { IncidentExistsError } from "./incidents-errors.js";
import { type Incident, isActive } from "./incidents-record.js";

export interface IncidentRef {
  slug: string;
  id: string;
}

const ref = (i: Incident): IncidentRef => ({ slug: i.slug, id: i.id });

function open(store: IncidentStore, n: Notification): Incident {
  const c = n.condition;
  const base = incidentName(c);
  for (let attempt = 1; ; attempt++) {
    const name = attempt === 1 ? base : `${base} ${attempt}`;
    try {
      return store.create({
        name,
        description: c.summary,
        priority: incidentPriority(c.kind),
        tags: [c.kind],
        runId: c.run ?? null,
        schedule: c.schedule ?? null,
        fingerprint: n.fingerprint,
        entry: `${c.summary} (fingerprint ${n.fingerprint})`,
      });
    } catch (err) {
      // The same problem came back after its incident was resolved: a new, numbered one.
      if (!(err instanceof IncidentExistsError) || attempt >= 50) throw err;
    }
  }
}

/** Applies `n` to its incident; returns the incident the message should name. */
export function syncIncident(store: IncidentStore, n: Notification): IncidentRef | undefined {
  const c = n.condition;
  const existing = store.findByFingerprint(n.fingerprint);
  const active = existing !== undefined && isActive(existing) ? existing : undefined;
  switch (n.kind) {
    case "firing":
      // Already open: the alert state was lost (a crash before it was saved) and this is a resend.
      if (active !== undefined) return ref(store.log(active.slug, c.summary, "Fired again"));
      return ref(open(store, n));
    case "reminder": {
      // Resolved by hand while the alert still holds: the note goes to that same incident.
      const target = active ?? existing;
      if (target === undefined) return ref(open(store, n));
      return ref(
        store.log(target.slug, `Still firing (reminder ${n.reminder ?? 1}): ${c.summary}`),
      );
    }
    case "resolved":
      if (active === undefined) return existing === undefined ? undefined : ref(existing);
      return ref(store.resolve(active.slug, `The condition cleared: ${c.summary}`));
  }
}
