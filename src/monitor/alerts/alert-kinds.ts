// Every kind of alert the outbox carries: the monitor's condition kinds (their words and levels
// come from detect/condition-kinds.ts), the outbox's own three, a run's undelivered pull
// request, a review run's unposted review and a run's issues not told of its end, each with
// its label and the severity a paging service gets.
import { CONDITION_KINDS, kindDefinition } from "../detect/condition-kinds.js";
import type { ConditionKind, Severity } from "../detect/conditions.js";

/** Alerts the outbox is handed directly, not from a detected condition. */
const OUTBOX_KINDS = {
  delivery_failed: { label: "alert delivery failed", paging: "critical" },
  test: { label: "test alert", paging: "critical" },
  /** The morning digest (`[[digest]]`): news, never a page; paging channels are refused it. */
  digest: { label: "digest", paging: "warning" },
  pull_request_failed: { label: "pull request not delivered", paging: "warning" },
  review_failed: { label: "review not posted", paging: "warning" },
  issue_followup_failed: { label: "issue not updated", paging: "warning" },
} as const satisfies Record<string, { label: string; paging: Severity }>;

type OutboxKind = keyof typeof OUTBOX_KINDS;
export type AlertKind = ConditionKind | OutboxKind;

export const ALERT_KINDS = [...Object.keys(CONDITION_KINDS), ...Object.keys(OUTBOX_KINDS)] as [
  AlertKind,
  ...AlertKind[],
];

const isOutboxKind = (kind: AlertKind): kind is OutboxKind => Object.hasOwn(OUTBOX_KINDS, kind);

function wordsOf(kind: AlertKind): { label: string; paging: Severity } {
  return isOutboxKind(kind) ? OUTBOX_KINDS[kind] : kindDefinition(kind);
}

/** The kind in alert subjects and facts ("gate stuck"). */
export function kindLabel(kind: AlertKind): string {
  return wordsOf(kind).label;
}

/** The severity a paging service (PagerDuty, Opsgenie) gets for an alert of `kind`. */
export function pagingSeverity(kind: AlertKind): Severity {
  return wordsOf(kind).paging;
}
