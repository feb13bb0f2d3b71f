// Recurring maintenance windows ([[silence]]): on a fake clock, a failure inside the window of
// its schedule is recorded and not sent; it goes out when the window ends, as it still holds.
// A schedule the window does not name pages at once. `status` shows the window.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { MonitorService } from "../../src/monitor/service.js";
import { readStatus, renderStatus } from "../../src/monitor/status.js";
import { loadConfig, parseConfigText } from "../../src/scheduler/config/config.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";
import { formatProblem } from "../../src/util/errors.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { enqueuedMessages } from "../helpers/outbox.js";

const silent = pino({ level: "silent" });
const services: MonitorService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.stop();
  cleanupTempDirs();
});

const CONFIG = `state_dir = "state"
schedules_dir = "schedules"

[[channel]]
name = "ops"
type = "email"
from = "cron@example.com"
to = ["ops@example.com"]

[[silence]]
name = "nightly-maintenance"
cron = "0 2 * * *"
duration = "1h"
schedules = ["nightly"]
comment = "the database is down for its backup"
`;

const schedule = (name: string) =>
  `[[schedule]]\nname = "${name}"\ncron = "0 2 * * *"\nkind = "command"\ncommand = ["false"]\nproject_dir = "../work"\n`;

function world() {
  const root = tempDir("autoloop-window-");
  writeFileSync(join(root, "autoloop-cron.toml"), CONFIG);
  mkdirSync(join(root, "schedules"));
  mkdirSync(join(root, "work"));
  writeFileSync(join(root, "schedules", "s.toml"), schedule("nightly") + schedule("reports"));
  const state = join(root, "state");
  let now = new Date(0);
  const ledger = RunLedger.open(state, { logger: silent, now: () => now });
  for (const name of ["nightly", "reports"]) {
    now = new Date("2026-11-27T02:05:00Z");
    const runId = newScheduledRunId(name, now);
    const planned = { runId, schedule: name, slot: now, trigger: "cron" as const };
    ledger.schedule({ ...planned, kind: "command", argv: ["false"], cwd: root });
    ledger.started(runId, { pid: 1, outputPath: "o.log", journalPath: "j", journalOffset: 0 });
    ledger.finished(runId, {
      status: "failed",
      basis: "exit",
      exitCode: 1,
      durationMs: 10,
      journalPath: "j",
    });
  }
  mkdirSync(join(state, "monitor"), { recursive: true });
  writeFileSync(join(state, "monitor", "alerts.json"), '{"version": 1, "alerts": []}\n');
  writeFileSync(join(state, "monitor", "watching-since"), "2026-11-27T00:00:00.000Z\n");
  return { state, config: loadConfig(join(root, "autoloop-cron.toml")) };
}

const sent = (state: string) => enqueuedMessages(state).map((m) => `${m.status} ${m.schedule}`);

describe("maintenance windows", () => {
  it("holds a matching alert until the window ends, then sends it as it still fires", async () => {
    const { state, config } = world();
    let now = new Date("2026-11-27T02:10:00Z");
    const s = new MonitorService({ config, logger: silent, now: () => now });
    services.push(s);
    await s.runOnce();
    // The unnamed schedule pages at once; the named one waits.
    expect(sent(state)).toEqual(["firing reports"]);
    const report = readStatus(config, now);
    expect(report.windows).toEqual([
      expect.objectContaining({
        name: "nightly-maintenance",
        openSince: "2026-11-27T02:00:00.000Z",
        until: "2026-11-27T03:00:00.000Z",
      }),
    ]);
    expect(report.firing.find((f) => f.schedule === "nightly")?.muted).toBe("silenced");
    expect(renderStatus(report)).toContain(
      "nightly-maintenance: open until 2026-11-27T03:00:00.000Z: matching alerts wait for its end (schedules nightly; kinds any)",
    );
    now = new Date("2026-11-27T02:55:00Z");
    await s.runOnce();
    expect(sent(state)).toEqual(["firing reports"]);
    // The window ends: the failure still holds, so it goes out now.
    now = new Date("2026-11-27T03:00:05Z");
    await s.runOnce();
    expect(sent(state)).toEqual(["firing reports", "firing nightly"]);
    expect(readStatus(config, now).windows[0]).toMatchObject({
      next: "2026-11-28T02:00:00.000Z",
    });
  });

  it("refuses a window without a cron or with a bad duration, naming the fix", () => {
    const problems = parseConfigText(
      "autoloop-cron.toml",
      '[[silence]]\nname = "w"\ncron = "61 * * * *"\nduration = "10s"\n',
      "/srv",
    ).problems.map(formatProblem);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^autoloop-cron.toml: silence\[0\]\.cron: found "61 \* \* \* \*"/);
    expect(problems[1]).toMatch(
      /^autoloop-cron.toml: silence\[0\]\.duration: found "10s"; expected a duration/,
    );
  });
});
