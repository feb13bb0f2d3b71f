// An agent names when to try again (`retry_after`), and the monitor holds a failure page while
// the retry is owed: "try again in 30 days" must not hold the page for a month. The wait an
// agent gets is capped (an hour, or the schedule's own delay when longer), and a retry that
// would start at or past the next slot holds nothing. The real monitor over a real ledger,
// on a fixed clock.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { MonitorService } from "../../src/monitor/service.js";
import { loadConfig } from "../../src/scheduler/config/config.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";
import { AGENT_RETRY_WAIT_CAP_MS } from "../../src/scheduler/retry/plan.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { enqueuedMessages } from "../helpers/outbox.js";

const silent = pino({ level: "silent" });
const services: MonitorService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.stop();
  cleanupTempDirs();
});

const DAY = 86_400_000;

/**
 * A schedule on `cron` retrying rate limits (page = "last"), whose first run at `slot`
 * ended rate-limited at `endedAt`, its agent saying to try again `waitMs` later.
 */
function rateLimitedRun(cron: string, slot: Date, endedAt: Date, waitMs: number) {
  const root = tempDir("autoloop-retry-cap-");
  writeFileSync(
    join(root, "autoloop-cron.toml"),
    'state_dir = "state"\n[[channel]]\nname = "ops"\ntype = "email"\nfrom = "cron@example.com"\nto = ["ops@example.com"]\n',
  );
  mkdirSync(join(root, "schedules"));
  writeFileSync(
    join(root, "schedules", "s.toml"),
    `[[schedule]]\nname = "agent"\ncron = "${cron}"\nkind = "command"\ncommand = ["false"]\nretry = { attempts = 3, delay = "5m", on = ["rate_limited"] }\n`,
  );
  const state = join(root, "state");
  let now = new Date(slot.getTime() + 1000);
  const ledger = RunLedger.open(state, { logger: silent, now: () => now });
  const runId = newScheduledRunId("agent", slot);
  const run = { runId, schedule: "agent", slot, trigger: "cron" as const };
  ledger.schedule({ ...run, kind: "command", argv: ["false"], cwd: root });
  ledger.started(runId, { pid: 1, outputPath: "o.log", journalPath: "j", journalOffset: 0 });
  now = endedAt;
  ledger.finished(runId, {
    ...{ status: "failed", basis: "journal", stopReason: "rate_limited", exitCode: 1 },
    retryAfter: new Date(endedAt.getTime() + waitMs).toISOString(),
    durationMs: endedAt.getTime() - slot.getTime(),
    journalPath: "j",
  });
  mkdirSync(join(state, "monitor"), { recursive: true });
  writeFileSync(join(state, "monitor", "alerts.json"), '{"version": 1, "alerts": []}\n');
  writeFileSync(join(state, "monitor", "watching-since"), `${slot.toISOString()}\n`);
  const pages = () => enqueuedMessages(state).filter((m) => m.kind === "run_failed");
  return { config: loadConfig(join(root, "autoloop-cron.toml")), runId, pages };
}

describe("an agent's retry_after", () => {
  it("30 days on a yearly schedule: the retry waits an hour at most, and the page fires once that retry did not come", async () => {
    const slot = new Date("2026-01-01T02:00:00.000Z");
    const endedAt = new Date("2026-01-01T02:10:00.000Z");
    const { config, runId, pages } = rateLimitedRun("0 2 1 1 *", slot, endedAt, 30 * DAY);
    let now = new Date(endedAt.getTime() + 60_000);
    const s = new MonitorService({ config, logger: silent, now: () => now });
    services.push(s);
    await s.runOnce();
    expect(pages()).toEqual([]); // held: a retry is owed within the hour
    // The hour and the two minutes' grace are over and no attempt 2 started: page.
    now = new Date(endedAt.getTime() + AGENT_RETRY_WAIT_CAP_MS + 3 * 60_000);
    await s.runOnce();
    expect(pages().map((m) => [m.status, m.runId])).toEqual([["firing", runId]]);
    expect(pages()[0]!.retry?.nextAt).toBe(
      new Date(endedAt.getTime() + AGENT_RETRY_WAIT_CAP_MS).toISOString(),
    );
  });

  it("a wait past the schedule's next slot holds nothing: the page fires at once", async () => {
    const slot = new Date("2026-01-01T02:00:00.000Z");
    const endedAt = new Date("2026-01-01T02:30:00.000Z");
    // Within the cap, but 02:30 + 50 minutes is past the 03:00 slot.
    const { config, runId, pages } = rateLimitedRun("0 * * * *", slot, endedAt, 50 * 60_000);
    const now = new Date(endedAt.getTime() + 60_000);
    const s = new MonitorService({ config, logger: silent, now: () => now });
    services.push(s);
    await s.runOnce();
    expect(pages().map((m) => [m.status, m.runId])).toEqual([["firing", runId]]);
  });
});
