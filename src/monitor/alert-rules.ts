// The per-fingerprint alert lifecycle (pending → firing → resolved) as a pure step: the
// alerts so far, the conditions that hold and the operator's decisions at `now` in,
// the notifications to send out.
import type { Condition } from "./conditions.js";
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
  reminders: number;
  lastNotifiedAt?: string;
  /** The condition has not held since then; resolution waits for the settle period. */
  clearedAt?: string;
  resolvedAt?: string;
}

export interface Notification {
  kind: "firing" | "reminder" | "resolved";
  fingerprint: string;
  condition: Condition;
  /** 1, 2, … for reminders. */
  reminder?: number;
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

function present(
  rec: AlertRecord,
  now: Date,
  policy: AlertPolicy,
  ops: OperatorState,
  send: (kind: Notification["kind"], reminder?: number) => void,
): void {
  delete rec.clearedAt; // Back within the settle period: the same alert goes on, silently.
  const at = now.toISOString();
  if (rec.phase === "pending" && now.getTime() - t(rec.firstSeenAt) >= policy.pendingMs) {
    rec.phase = "firing";
    rec.firedAt = at;
  }
  if (rec.phase !== "firing" || activeSilence(ops, rec.condition, now) !== undefined) return;
  if (!rec.notified) {
    // New, or its silence just ended while it still holds.
    rec.notified = true;
    rec.lastNotifiedAt = at;
    send("firing");
    return;
  }
  if (activeAck(ops, rec.fingerprint, rec.firedAt!, now) !== undefined) return;
  if (now.getTime() < reminderDue(rec, policy, ops)) return;
  rec.reminders += 1;
  rec.lastNotifiedAt = at;
  send("reminder", rec.reminders);
}

/** Returns false when the record should be forgotten. */
function absent(
  rec: AlertRecord,
  now: Date,
  policy: AlertPolicy,
  ops: OperatorState,
  send: (kind: Notification["kind"]) => void,
): boolean {
  if (rec.phase === "pending") return false; // Never fired: nobody heard of it.
  if (rec.phase === "resolved") return now.getTime() - t(rec.resolvedAt) <= policy.keepResolvedMs;
  rec.clearedAt ??= now.toISOString();
  if (now.getTime() - t(rec.clearedAt) < policy.settleMs) return true;
  rec.phase = "resolved";
  rec.resolvedAt = rec.clearedAt;
  delete rec.clearedAt;
  // Silenced alerts stay quiet to the end; one nobody was told about needs no all-clear.
  if (rec.notified && activeSilence(ops, rec.condition, now) === undefined) send("resolved");
  return true;
}

/** Advances every alert to `now`; mutates `alerts` and returns what to send. */
export function reconcileAlerts(
  alerts: Map<string, AlertRecord>,
  conditions: readonly Condition[],
  now: Date,
  ops: OperatorState,
  policy: AlertPolicy = DEFAULT_ALERT_POLICY,
): Notification[] {
  const out: Notification[] = [];
  const sender = (rec: AlertRecord) => (kind: Notification["kind"], reminder?: number) => {
    const n: Notification = {
      kind,
      fingerprint: rec.fingerprint,
      condition: rec.condition,
      firstSeenAt: rec.firstSeenAt,
      at: now.toISOString(),
    };
    if (reminder !== undefined) n.reminder = reminder;
    out.push(n);
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
        firstSeenAt: now.toISOString(),
        notified: false,
        reminders: 0,
      };
      alerts.set(fp, rec);
    }
    rec.condition = condition;
    present(rec, now, policy, ops, sender(rec));
  }
  for (const [fp, rec] of alerts) {
    if (holding.has(fp)) continue;
    if (!absent(rec, now, policy, ops, sender(rec))) alerts.delete(fp);
  }
  return out;
}
