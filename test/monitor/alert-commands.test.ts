// The commands an alert offers work when pasted from any folder: every `autoloop-cron` one
// names the config file, and a command schedule's run is inspected by its output log.
import { describe, expect, it } from "vitest";
import { composeMessage } from "../../src/monitor/compose-alert.js";
import type { Condition } from "../../src/monitor/detect/conditions.js";
import type { Schedule } from "../../src/scheduler/schedules/schedule-file.js";

const condition = {
  kind: "run_failed",
  run: "backup-20261127T0300-abcde",
  reason: "exit_code",
  outcome: "failed",
  fingerprint: "run_failed:backup",
  severity: "critical",
  summary: "run backup-20261127T0300-abcde failed: exit 3",
  occurredAt: "2026-11-27T03:00:05.000Z",
  schedule: "backup",
} as Condition;

const notification = {
  kind: "firing" as const,
  fingerprint: condition.fingerprint,
  condition,
  firstSeenAt: condition.occurredAt,
  at: condition.occurredAt,
};

describe("an alert's commands", () => {
  it("name the config file, and inspect a command run by its output", () => {
    const message = composeMessage(notification, {
      run: undefined,
      schedule: { kind: "command", name: "backup", timezone: "UTC" } as Schedule,
      timezone: "UTC",
      incident: { slug: "backup-fails", id: "inc-1" },
      configFile: "/etc/autoloop cron/autoloop-cron.toml",
    });
    expect(message.commands).toEqual({
      inspect:
        "autoloop-cron output backup-20261127T0300-abcde --config '/etc/autoloop cron/autoloop-cron.toml'",
      ack: "autoloop-cron incident ack backup-fails --config '/etc/autoloop cron/autoloop-cron.toml'",
    });
  });
});
