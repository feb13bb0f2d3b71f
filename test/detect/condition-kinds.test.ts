// The condition-kind registry is the one place a kind's words and levels come from: the
// outbox's kinds, the labels in subjects and the paging services' severities read it.
import { describe, expect, it } from "vitest";
import { ALERT_KINDS, kindLabel, pagingSeverity } from "../../src/monitor/alerts/alert-kinds.js";
import { alertMessageSchema, testAlertMessage } from "../../src/monitor/alerts/message.js";
import { CONDITION_KINDS, RUN_KINDS } from "../../src/monitor/detect/condition-kinds.js";

describe("condition kinds", () => {
  it("makes every condition kind an alert kind, with the outbox's own three and an undelivered pull request after them", () => {
    expect(ALERT_KINDS).toEqual([
      ...Object.keys(CONDITION_KINDS),
      "delivery_failed",
      "test",
      "digest",
      "pull_request_failed",
      "review_failed",
      "issue_followup_failed",
    ]);
    const message = testAlertMessage(new Date("2026-11-21T02:00:00Z"));
    for (const kind of ALERT_KINDS)
      expect(alertMessageSchema.safeParse({ ...message, kind }).success, kind).toBe(true);
    expect(alertMessageSchema.safeParse({ ...message, kind: "nope" }).success).toBe(false);
  });

  it("gives each kind its label and paging severity", () => {
    const words = Object.fromEntries(
      ALERT_KINDS.map((k) => [k, `${kindLabel(k)} / ${pagingSeverity(k)}`]),
    );
    expect(words).toEqual({
      gate_stuck: "gate stuck / critical",
      run_failed: "run failed / critical",
      run_timed_out: "run timed out / critical",
      run_crashed: "run crashed / critical",
      run_stalled: "run stalled / warning",
      question_pending: "run asks a human / critical",
      schedule_trouble: "schedule trouble / warning",
      budget_exhausted: "budget spent / warning",
      run_costly: "run cost more than usual / warning",
      schedule_paused: "schedule paused / critical",
      config_invalid: "config invalid / critical",
      state_unwritable: "state not writable / critical",
      auth_expiring: "agent login expiring / critical",
      delivery_failed: "alert delivery failed / critical",
      pull_request_failed: "pull request not delivered / warning",
      review_failed: "review not posted / warning",
      issue_followup_failed: "issue not updated / warning",
      test: "test alert / critical",
      digest: "digest / warning",
    });
  });

  it("groups the kinds about one run", () => {
    expect([...RUN_KINDS]).toEqual([
      "gate_stuck",
      "run_failed",
      "run_timed_out",
      "run_crashed",
      "run_stalled",
    ]);
  });
});
