// Keeps one incident per alert episode in step with its notifications: firing opens it (or
// notes a resend on the one already open), reminders and runs joining the group log to it,
// resolved closes it, expired leaves a note for a human to close it.

import { IncidentExistsError } from "../incidents/errors.js";
import { type Incident, isActive } from "../incidents/record.js";
import { slugify } from "../incidents/slug.js";
import type { IncidentStore, NewIncident } from "../incidents/store.js";
import type { Notification } from "./alert-state.js";
import { incidentName, incidentPriority, troubleKind } from "./compose-alert.js";

export interface IncidentRef {
  slug: string;
  id: string;
}

const ref = (i: Incident): IncidentRef => ({ slug: i.slug, id: i.id });

function newIncident(n: Notification, name: string): NewIncident {
  const c = n.condition;
  return {
    name,
    description: c.summary,
    priority: incidentPriority(c),
    tags: [troubleKind(c)],
    runId: c.run ?? null,
    schedule: c.schedule ?? null,
    fingerprint: n.fingerprint,
    entry: `${c.summary} (grouping key ${n.fingerprint})`,
  };
}

const numbered = (base: string, attempt: number) => (attempt === 1 ? base : `${base} ${attempt}`);

function open(store: IncidentStore, n: Notification, id?: string): Incident {
  const base = incidentName(n.condition);
  for (let attempt = 1; ; attempt++) {
    try {
      return store.create(newIncident(n, numbered(base, attempt)), id);
    } catch (err) {
      // The same problem came back after its incident was resolved: a new, numbered one.
      if (!(err instanceof IncidentExistsError) || attempt >= 50) throw err;
    }
  }
}

/** An incident named and numbered now, its file written by `write()` a moment later. */
export interface PlannedIncident {
  ref: IncidentRef;
  fingerprint: string;
  /** Writes the file; a name taken meanwhile gets the next number (and a changed ref). */
  write(): IncidentRef;
}

/**
 * For a page that opens a new incident: its slug and id without writing the file, so the page
 * can go out first (creating the file costs two fsyncs). Undefined when the
 * notification does not open one now (an incident is already active, or it is not a page).
 */
export function planOpen(store: IncidentStore, n: Notification): PlannedIncident | undefined {
  if (n.kind !== "firing") return undefined;
  const existing = store.findByFingerprint(n.fingerprint);
  if (existing !== undefined && isActive(existing)) return undefined;
  const base = incidentName(n.condition);
  for (let attempt = 1; attempt <= 50; attempt++) {
    const name = numbered(base, attempt);
    const slug = slugify(name);
    if (slug === "" || store.has(slug)) continue;
    const id = store.newId();
    return {
      ref: { slug, id },
      fingerprint: n.fingerprint,
      write: () => {
        try {
          return ref(store.create(newIncident(n, name), id));
        } catch (err) {
          if (!(err instanceof IncidentExistsError)) throw err;
          return ref(open(store, n, id));
        }
      },
    };
  }
  return undefined;
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
    case "update": {
      const target = active ?? existing;
      if (target === undefined) return ref(open(store, n));
      let last = target;
      // Oldest first, so the newest-first changelog reads in the order the runs failed.
      for (const m of [...(n.members ?? [])].reverse())
        last = store.log(target.slug, `Also: ${m.note}`);
      return ref(last);
    }
    case "expired":
      if (active === undefined) return existing === undefined ? undefined : ref(existing);
      return ref(
        store.log(
          active.slug,
          `${n.note ?? "No longer tracked"}; resolve it by hand once dealt with`,
        ),
      );
    case "acknowledged":
      // The incident was acked where the ack came from; only the paging services are told.
      return existing === undefined ? undefined : ref(existing);
    case "resolved":
      if (active === undefined) return existing === undefined ? undefined : ref(existing);
      return ref(
        store.resolve(
          active.slug,
          n.note !== undefined ? `Resolved: ${n.note}` : `The condition cleared: ${c.summary}`,
        ),
      );
  }
}
