// The monitor's spend alerts, from the scheduler's real files: a schedule whose daily budget is
// spent pages once for the day and is resolved when the day turns (in its own zone); a run
// that costs more than `cost_factor` times its schedule's median is news, once per schedule.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { MonitorService } from "../../src/monitor/service.js";
import { loadConfig } from "../../src/scheduler/config/config.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";
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

[monitor]
cost_factor = 3

[[channel]]
name = "ops"
type = "email"
from = "cron@example.com"
to = ["ops@example.com"]
`;

const schedule = (name: string, extra: string) => `[[schedule]]
name = "${name}"
cron = "0 * * * *"
timezone = "America/New_York"
preset = "demo"
objective = "Write the report"
project_dir = "../project"
${extra}
`;

/** A config dir whose ledger holds `nightly`'s finished runs with these costs, at these times. */
function world(runs: Array<{ schedule: string; at: string; cost: number }>) {
  const root = tempDir("autoloop-spend-alerts-");
  writeFileSync(join(root, "autoloop-cron.toml"), CONFIG);
  mkdirSync(join(root, "schedules"));
  mkdirSync(join(root, "project"));
  writeFileSync(
    join(root, "schedules", "s.toml"),
    schedule("nightly", "budget = { per_day = 1.0 }") + schedule("weekly", ""),
  );
  const state = join(root, "state");
  let now = new Date(0);
  const ledger = RunLedger.open(state, { logger: silent, now: () => now });
  for (const r of runs) {
    now = new Date(r.at);
    const runId = newScheduledRunId(r.schedule, now);
    const planned = { runId, schedule: r.schedule, slot: now, trigger: "cron" as const };
    ledger.schedule({ ...planned, kind: "preset", argv: ["autoloop"], cwd: root });
    ledger.started(runId, { pid: 1, outputPath: "o.log", journalPath: "j", journalOffset: 0 });
    ledger.finished(runId, {
      status: "completed",
      basis: "journal",
      durationMs: 1000,
      journalPath: "j",
      spend: { costUsd: r.cost, tokens: 100, unpricedIterations: 0 },
    });
  }
  // A monitor that was already watching.
  mkdirSync(join(state, "monitor"), { recursive: true });
  writeFileSync(join(state, "monitor", "alerts.json"), '{"version": 1, "alerts": []}\n');
  writeFileSync(join(state, "monitor", "watching-since"), "2026-11-01T00:00:00.000Z\n");
  return { state, config: loadConfig(join(root, "autoloop-cron.toml")) };
}

describe("spend alerts", () => {
  it("pages once when a schedule's daily budget is spent, and resolves when its day turns", async () => {
    // 14:00 and 15:00 in New York on November 27th: $1.10 of a $1.00 day.
    const { state, config } = world([
      { schedule: "nightly", at: "2026-11-27T19:00:00Z", cost: 0.6 },
      { schedule: "nightly", at: "2026-11-27T20:00:00Z", cost: 0.5 },
    ]);
    let now = new Date("2026-11-27T20:30:00Z");
    const s = new MonitorService({ config, logger: silent, now: () => now });
    services.push(s);
    await s.runOnce();
    now = new Date("2026-11-27T23:30:00Z");
    await s.runOnce();
    let messages = enqueuedMessages(state).filter((m) => m.kind === "budget_exhausted");
    expect(messages.map((m) => m.status)).toEqual(["firing"]);
    expect(messages[0]).toMatchObject({
      schedule: "nightly",
      title: "Schedule nightly: daily budget spent for 2026-11-27",
    });
    expect(messages[0]!.summary).toContain("its slots are skipped until 2026-11-28T05:00:00.000Z");
    expect(messages[0]!.detail).toContain("spent $1.10 of its per_day $1.00 for 2026-11-27");
    // Midnight in New York is 05:00 UTC: the budget holds again.
    now = new Date("2026-11-28T05:00:01Z");
    await s.runOnce();
    messages = enqueuedMessages(state).filter((m) => m.kind === "budget_exhausted");
    expect(messages.map((m) => m.status)).toEqual(["firing", "resolved"]);
    expect(messages[1]!.resolution).toBe(
      "the day turned or the budget was raised: nightly runs again",
    );
  });

  it("says when a run cost more than cost_factor times its schedule's median", async () => {
    const { state, config } = world([
      { schedule: "weekly", at: "2026-11-20T15:00:00Z", cost: 0.1 },
      { schedule: "weekly", at: "2026-11-21T15:00:00Z", cost: 0.12 },
      { schedule: "weekly", at: "2026-11-22T15:00:00Z", cost: 0.08 },
      { schedule: "weekly", at: "2026-11-23T15:00:00Z", cost: 0.5 },
    ]);
    const s = new MonitorService({
      config,
      logger: silent,
      now: () => new Date("2026-11-23T16:00:00Z"),
    });
    services.push(s);
    await s.runOnce();
    const messages = enqueuedMessages(state).filter((m) => m.kind === "run_costly");
    expect(messages).toHaveLength(1);
    expect(messages[0]!.summary).toBe(
      "schedule weekly: run weekly-20261123T1500-" +
        messages[0]!.runId!.slice(-5) +
        " cost $0.50, 5.0x the median $0.10 of its last 3 runs (cost_factor 3)",
    );
    expect(messages[0]!.fingerprint).toBe("run_costly:weekly");
  });
});
