// The per-fingerprint alert lifecycle (pending → firing → resolved) as a pure step: the
// alerts so far, the conditions that hold and the operator's decisions at `now` in,
// the notifications to send out.
import type { Ending } from "./detect/condition-kinds.js";
import type { Condition, GroupMember } from "./detect/conditions.js";
import { activeAck, activeSilence, type OperatorState } from "./silences.js";

export type AlertPhase = "pending" | "firing" | "resolved";

export interface AlertRecord {
  fingerprint: string;
  phase: AlertPhase;
  /** The latest condition seen (for resolved alerts: the last one before it cleared). */
  condition: Condition;
  /** When this episode's condition first held. */
  firstSeenAt: string;
  firedAt?: string;
  /** A firing notification went out this episode (false while it fired silenced). */
  notified: boolean;
  /** An operator acknowledged it this episode and the paging services were told. */
  acknowledged?: boolean;
  reminders: number;
  lastNotifiedAt?: string;
  /** The condition has not held since then; resolution waits for the settle period. */
  clearedAt?: string;
  resolvedAt?: string;
  /**
   * Known from the monitor's first look (every run in it ended before it started watching):
   * listed in `status`, never paged, dropped silently when it clears.
   */
  baseline?: boolean;
}

export interface Notification {
  /**
   * `update` (new runs joined a firing group) and `expired` (the monitor stopped tracking it)
   * go to the incident's changelog only; the others also go to the channels.
   */
  kind: "firing" | "reminder" | "resolved" | "update" | "expired" | "acknowledged";
  fingerprint: string;
  condition: Condition;
  /** 1, 2, … for reminders. */
  reminder?: number;
  /** Why it resolved or expired ("run X completed", "schedule removed from the config"). */
  note?: string;
  /** For `update`: the runs that joined, newest first. */
  members?: GroupMember[];
  firstSeenAt: string;
  /** ISO `now` of the reconcile that decided it. */
  at: string;
}

export interface AlertPolicy {
  /** A condition must hold this long before it fires (0: at once). */
  pendingMs: number;
  /** Gaps between reminders; the last one repeats (4 h, 8 h, then every 24 h). */
  reminderIntervalsMs: number[];
  /**
   * Flap suppression: a firing condition that clears is resolved only after it stayed clear
   * this long; coming back within it continues the same alert, so a flapping condition never
   * sends resolved+firing pairs more often than this.
   */
  settleMs: number;
  /** Resolved alerts stay listed (for `status`) this long. */
  keepResolvedMs: number;
}

/** How an alert that stopped holding ends (defined beside the kinds whose facts decide it). */
export type { Ending };

const HOUR = 3_600_000;

export const DEFAULT_ALERT_POLICY: Readonly<AlertPolicy> = {
  pendingMs: 0,
  reminderIntervalsMs: [4 * HOUR, 8 * HOUR, 24 * HOUR],
  settleMs: 10 * 60_000,
  keepResolvedMs: 7 * 24 * HOUR,
};

const t = (iso: string | undefined) => (iso === undefined ? Number.NaN : Date.parse(iso));

/** When the next reminder is due; an expired ack (`ack --for`) defers it to the ack's end. */
function reminderDue(rec: AlertRecord, policy: AlertPolicy, ops: OperatorState): number {
  const gaps = policy.reminderIntervalsMs;
  const gap = gaps[Math.min(rec.reminders, gaps.length - 1)] ?? Number.POSITIVE_INFINITY;
  const due = t(rec.lastNotifiedAt) + gap;
  const acks = ops.acks.filter((a) => a.fingerprint === rec.fingerprint && a.at >= rec.firedAt!);
  return Math.max(due, ...acks.map((a) => t(a.until)).filter(Number.isFinite));
}

type Send = (kind: Notification["kind"], extra?: Partial<Notification>) => void;

/** A group of runs that have all ended (nothing still running, stuck or stalled). */
function isHistory(c: Condition): boolean {
  return c.group?.members.every((m) => !m.live) === true;
}

/** Every run of the group ended before `time` (epoch ms): before the monitor was watching. */
function endedBefore(c: Condition, time: number | undefined): boolean {
  return time !== undefined && c.group?.members.every((m) => Date.parse(m.at) < time) === true;
}

/** Runs in `next` that `prev` did not have, newest first. */
function joined(prev: Condition, next: Condition): GroupMember[] {
  if (prev === next) return []; // the group was reused as it was (see GroupingMemo)
  const before = new Set(prev.group?.members.map((m) => m.run) ?? [prev.run]);
  return (next.group?.members ?? []).filter((m) => !before.has(m.run));
}

function present(
  rec: AlertRecord,
  previous: Condition,
  now: Date,
  at: string,
  policy: AlertPolicy,
  ops: OperatorState,
  send: Send,
): void {
  // Back within the settle period: the same alert goes on, silently.
  if (rec.clearedAt !== undefined) delete rec.clearedAt;
  if (rec.baseline) {
    if (joined(previous, rec.condition).length === 0) return;
    // A new run joined what was known from before: from now on it is news.
    delete rec.baseline;
    rec.firedAt = at;
  }
  if (rec.phase === "pending" && now.getTime() - t(rec.firstSeenAt) >= policy.pendingMs) {
    rec.phase = "firing";
    rec.firedAt = at;
  }
  if (rec.phase !== "firing" || activeSilence(ops, rec.condition, now) !== undefined) return;
  if (!rec.notified) {
    // New, or its silence just ended while it still holds.
    rec.notified = true;
    delete rec.acknowledged;
    rec.lastNotifiedAt = at;
    send("firing");
    return;
  }
  // Another run failing the same way: the incident's changelog grows, nobody is paged again.
  const members = joined(previous, rec.condition);
  if (members.length > 0) send("update", { members });
  if (activeAck(ops, rec.fingerprint, rec.firedAt!, now) !== undefined) {
    // Acked here: the paging services' alert is acknowledged too, once.
    if (rec.acknowledged !== true) {
      rec.acknowledged = true;
      send("acknowledged");
    }
    return;
  }
  if (now.getTime() < reminderDue(rec, policy, ops)) return;
  rec.reminders += 1;
  rec.lastNotifiedAt = at;
  send("reminder", { reminder: rec.reminders });
}

/** Returns false when the record should be forgotten. */
function absent(
  rec: AlertRecord,
  now: Date,
  policy: AlertPolicy,
  ops: OperatorState,
  send: Send,
  ending: Ending | undefined,
): boolean {
  if (rec.phase === "pending" || rec.baseline) return false; // Nobody heard of it.
  if (rec.phase === "resolved") return now.getTime() - t(rec.resolvedAt) <= policy.keepResolvedMs;
  if (ending?.kind === "expire") {
    if (rec.notified) send("expired", { note: ending.note });
    return false;
  }
  rec.clearedAt ??= now.toISOString();
  if (ending === undefined && now.getTime() - t(rec.clearedAt) < policy.settleMs) return true;
  rec.phase = "resolved";
  rec.resolvedAt = ending === undefined ? rec.clearedAt : now.toISOString();
  delete rec.clearedAt;
  // Silenced alerts stay quiet to the end; one nobody was told about needs no all-clear.
  if (rec.notified && activeSilence(ops, rec.condition, now) === undefined)
    send("resolved", ending === undefined ? {} : { note: ending.note });
  return true;
}

/** Advances every alert to `now`; mutates `alerts` and returns what to send. */
export function reconcileAlerts(
  alerts: Map<string, AlertRecord>,
  conditions: readonly Condition[],
  now: Date,
  ops: OperatorState,
  policy: AlertPolicy = DEFAULT_ALERT_POLICY,
  endingOf: (rec: AlertRecord) => Ending | undefined = () => undefined,
  /**
   * The monitor's first look (no state yet): groups whose runs have all ended are history.
   * They are recorded (and listed by `status`) without paging anyone.
   */
  firstLook = false,
  /**
   * When the monitor began watching (epoch ms, `monitor/watching-since`): groups whose runs
   * all ended before it are history too, whichever pass first reads them (the daemon's
   * follower reads old journals over several passes).
   */
  watchingSince?: number,
): Notification[] {
  const out: Notification[] = [];
  const at = now.toISOString();
  const sender =
    (rec: AlertRecord): Send =>
    (kind, extra = {}) => {
      out.push({
        kind,
        fingerprint: rec.fingerprint,
        condition: rec.condition,
        firstSeenAt: rec.firstSeenAt,
        at,
        ...extra,
      });
    };
  const holding = new Set<string>();
  for (const condition of conditions) {
    const fp = condition.fingerprint;
    if (holding.has(fp)) continue;
    holding.add(fp);
    let rec = alerts.get(fp);
    if (rec === undefined || rec.phase === "resolved") {
      rec = {
        fingerprint: fp,
        phase: "pending",
        condition,
        firstSeenAt: at,
        notified: false,
        reminders: 0,
      };
      if (isHistory(condition) && (firstLook || endedBefore(condition, watchingSince))) {
        rec.phase = "firing";
        rec.firedAt = at;
        rec.baseline = true;
      }
      alerts.set(fp, rec);
    }
    const previous = rec.condition;
    rec.condition = condition;
    present(rec, previous, now, at, policy, ops, sender(rec));
  }
  for (const [fp, rec] of alerts) {
    if (holding.has(fp)) continue;
    const ending = rec.phase === "firing" ? endingOf(rec) : undefined;
    if (!absent(rec, now, policy, ops, sender(rec), ending)) alerts.delete(fp);
  }
  return out;
}
