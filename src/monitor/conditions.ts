// What the detectors report: one condition per problem that holds right now, with a stable
// fingerprint (kind + subject, never times or error text) that the alert state keys on.
import type { AlertKind } from "../alerts/message.js";

export type Severity = "critical" | "warning";

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
        kind: "schedule_trouble";
        schedule: string;
        cause: "skipped" | "missed";
        /** Slots skipped/blocked in a row, or slots missed while the daemon was down. */
        count: number;
        slots?: string[];
      }
    | { kind: "config_invalid"; file: string; problems: string[] }
  );

export type ConditionKind = Condition["kind"];

// Every condition kind must be an alert kind the outbox accepts.
const _kindsAreAlertKinds: ConditionKind extends AlertKind ? true : never = true;
void _kindsAreAlertKinds;

/** `kind:subject[:extra]`; subjects are run ids, schedule names or file paths. */
export function fingerprintOf(kind: ConditionKind, subject: string, extra?: string): string {
  return extra === undefined || extra === "" ? `${kind}:${subject}` : `${kind}:${subject}:${extra}`;
}
