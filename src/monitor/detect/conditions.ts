// What the detectors report: one condition per problem that holds right now, with a stable
// fingerprint (kind + subject, never times or error text) that the alert state keys on.

export type Severity = "critical" | "warning";

/** One run in a group: what it did, newest first in `GroupInfo.members`. */
export interface GroupMember {
  run: string;
  kind: ConditionKind;
  /** When it happened (the run's end, or the start of a live problem). */
  at: string;
  /** One line for the incident's changelog ("run X also stopped at the gate: task-2 open"). */
  note: string;
  /** Still running (a live gate refusal or stall), rather than ended. */
  live?: boolean;
}

/**
 * Conditions are grouped for on-call: every run of a schedule that fails the same way is one
 * alert and one incident (`by: "schedule"`); a run started by hand is its own (`by: "run"`).
 */
export interface GroupInfo {
  /** The kind of trouble the group is about (a run that stopped at its gate joins its gate alert's group). */
  kind: ConditionKind;
  by: "schedule" | "run";
  /** Newest first, at most GROUP_MEMBERS_KEPT. */
  members: GroupMember[];
  /** The schedule's failed runs in a row (any kind) since its last completed run. */
  consecutiveFailures: number;
  /** When the oldest of those failures happened. */
  failingSince: string;
}

interface Base {
  fingerprint: string;
  severity: Severity;
  /** One line for titles and `status`. */
  summary: string;
  /**
   * ISO time of the event the condition is about (not part of the fingerprint). Taken from the
   * facts, never from `now`, so an unchanged condition serializes the same on every check.
   */
  occurredAt: string;
  run?: string;
  schedule?: string;
  journalPath?: string;
  group?: GroupInfo;
  /** A run's end on a schedule that retries (`retry`): its attempt and the slot's attempts. */
  retry?: RetryInfo;
}

/** Which attempt of its slot a failed run was, and every attempt so far, one line each. */
export interface RetryInfo {
  attempt: number;
  of: number;
  /** When the next attempt starts (ISO), when one is owed. */
  nextAt?: string;
  attempts: string[];
}

export interface GateDetails {
  topic: string;
  via?: string;
  /** The latest refusal's open tasks; `text` is "" when the tasks file does not have it. */
  openTasks: { id: string; text: string }[];
  refusals: number;
  /** ISO time of the first refusal counted. */
  since: string;
  /** Which rule fired: refusals in a row, or a refusal older than the grace period. */
  trigger: "count" | "grace";
}

export type Condition = Base &
  (
    | { kind: "gate_stuck"; run: string; gate: GateDetails }
    | {
        kind: "run_failed";
        run: string;
        reason: string;
        /** `stopped`-class reasons are reported as warnings (see detectors.ts). */
        outcome: "failed" | "stopped";
        detail?: string;
        gateRefusals?: number;
      }
    | { kind: "run_timed_out"; run: string }
    | { kind: "run_crashed"; run: string; lastRecordAt: string }
    | { kind: "run_stalled"; run: string; lastRecordAt: string }
    | {
        /** The run waits for a human's answer (`ask.pending`): paged at once, on its own. */
        kind: "question_pending";
        run: string;
        questionId: string;
        question: string;
        askedAt: string;
        /** When the run stops waiting (absent from other harnesses' records). */
        timeoutAt?: string;
      }
    | {
        kind: "schedule_trouble";
        schedule: string;
        cause: "skipped" | "missed";
        /** Slots skipped/blocked in a row, or slots missed while the daemon was down. */
        count: number;
        slots?: string[];
      }
    | {
        /** The schedule's budget is spent for the day or month: its slots are skipped. */
        kind: "budget_exhausted";
        schedule: string;
        period: "day" | "month";
        /** "2026-11-27" or "2026-11". */
        periodKey: string;
        /** ISO: when the period turns and the schedule runs again. */
        until: string;
        detail: string;
      }
    | {
        /** The schedule's latest run cost more than `cost_factor` times its usual (median). */
        kind: "run_costly";
        schedule: string;
        run: string;
        costUsd: number;
        medianUsd: number;
        factor: number;
        runs: number;
      }
    | {
        /** The scheduler paused the schedule after failed runs in a row (`pause_after_failures`). */
        kind: "schedule_paused";
        schedule: string;
        failures: number;
        runs: string[];
      }
    | { kind: "config_invalid"; file: string; problems: string[] }
    | {
        /** An agent CLI's login was refused by its check before a slot (`preflight`). */
        kind: "auth_expiring";
        agent: string;
        /** The schedules whose latest check it refused, in name order. */
        schedules: string[];
        /** The soonest slot of theirs it would fail (ISO). */
        nextSlot: string;
        /** What the check said. */
        detail: string;
      }
    | {
        /** The daemon's own files refuse writes (a full disk): held lines wait in memory. */
        kind: "state_unwritable";
        what: "ledger" | "outbox";
        path: string;
        error: string;
        waiting: number;
      }
  );

export type ConditionKind = Condition["kind"];

/** `kind:subject[:extra]`; subjects are run ids, schedule names or file paths. */
export function fingerprintOf(kind: ConditionKind, subject: string, extra?: string): string {
  return extra === undefined || extra === "" ? `${kind}:${subject}` : `${kind}:${subject}:${extra}`;
}
