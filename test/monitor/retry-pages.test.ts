// The monitor and a schedule's retries, from the scheduler's real files: with page = "last" a
// failed attempt followed by another pages nobody, and the last one pages once, listing every
// attempt of its slot; with page = "first" the first failure pages at once and says when the
// next attempt starts, and the retry that completes resolves it.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { MonitorService } from "../../src/monitor/service.js";
import { loadConfig } from "../../src/scheduler/config/config.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import type { TerminalStatus } from "../../src/scheduler/ledger/run-outcome.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { enqueuedMessages } from "../helpers/outbox.js";

const silent = pino({ level: "silent" });
const services: MonitorService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.stop();
  cleanupTempDirs();
});

const SLOT = new Date("2026-11-27T02:00:00.000Z");

/** A config dir with one command schedule retrying failed runs (`page`), and its ledger. */
function world(page: "first" | "last") {
  const root = tempDir("autoloop-retry-pages-");
  writeFileSync(
    join(root, "autoloop-cron.toml"),
    'state_dir = "state"\n[[channel]]\nname = "ops"\ntype = "email"\nfrom = "cron@example.com"\nto = ["ops@example.com"]\n',
  );
  mkdirSync(join(root, "schedules"));
  writeFileSync(
    join(root, "schedules", "s.toml"),
    `[[schedule]]\nname = "nightly"\ncron = "0 2 * * *"\nkind = "command"\ncommand = ["false"]\nretry = { attempts = 3, delay = "5m", on = ["failed"], page = "${page}" }\n`,
  );
  const state = join(root, "state");
  let now = SLOT;
  const ledger = RunLedger.open(state, { logger: silent, now: () => now });
  const first = newScheduledRunId("nightly", SLOT);
  /** Records attempt `n` of the slot, ended with `status` at `at`. */
  const attempt = (n: number, status: TerminalStatus, at: string): string => {
    now = new Date(Date.parse(at) - 60_000);
    const runId = n === 1 ? first : newScheduledRunId("nightly", SLOT);
    const retry = n === 1 ? {} : { attempt: n, parentRunId: first };
    const planned = { runId, schedule: "nightly", slot: SLOT, trigger: "cron" as const };
    ledger.schedule({ ...planned, ...retry, kind: "command", argv: ["false"], cwd: root });
    ledger.started(runId, { pid: 1, outputPath: "o.log", journalPath: "j", journalOffset: 0 });
    now = new Date(at);
    const exit = status === "failed" ? { exitCode: 1 } : {};
    ledger.finished(runId, {
      status,
      basis: "exit",
      durationMs: 60_000,
      journalPath: "j",
      ...exit,
    });
    return runId;
  };
  /** Records attempt `n` skipped (the schedule was paused when it was due). */
  const skipped = (n: number, at: string): string => {
    now = new Date(at);
    const runId = newScheduledRunId("nightly", SLOT);
    const slot = { runId, schedule: "nightly", slot: SLOT, trigger: "cron" as const };
    ledger.skip({ ...slot, attempt: n, parentRunId: first, cause: "paused", detail: "paused" });
    return runId;
  };
  mkdirSync(join(state, "monitor"), { recursive: true });
  writeFileSync(join(state, "monitor", "alerts.json"), '{"version": 1, "alerts": []}\n');
  writeFileSync(join(state, "monitor", "watching-since"), "2026-11-27T00:00:00.000Z\n");
  return { state, config: loadConfig(join(root, "autoloop-cron.toml")), attempt, skipped };
}

const failures = (state: string) => enqueuedMessages(state).filter((m) => m.kind === "run_failed");

describe("retries and pages", () => {
  it('page = "last": attempts followed by another page nobody; the last pages once with all three', async () => {
    const { state, config, attempt } = world("last");
    let now = new Date("2026-11-27T02:02:00.000Z");
    const s = new MonitorService({ config, logger: silent, now: () => now });
    services.push(s);
    const a1 = attempt(1, "failed", "2026-11-27T02:01:00.000Z");
    await s.runOnce();
    expect(failures(state)).toEqual([]);
    now = new Date("2026-11-27T02:08:00.000Z");
    const a2 = attempt(2, "failed", "2026-11-27T02:07:00.000Z");
    await s.runOnce();
    expect(failures(state)).toEqual([]);
    now = new Date("2026-11-27T02:19:00.000Z");
    const a3 = attempt(3, "failed", "2026-11-27T02:18:00.000Z");
    await s.runOnce();
    await s.runOnce();
    const pages = failures(state);
    expect(pages.map((m) => m.status)).toEqual(["firing"]);
    expect(pages[0]!.runId).toBe(a3);
    expect(pages[0]!.retry).toEqual({
      attempt: 3,
      of: 3,
      attempts: [
        `attempt 1 of 3: run ${a1} failed: exit 1`,
        `attempt 2 of 3: run ${a2} failed: exit 1`,
        `attempt 3 of 3: run ${a3} failed: exit 1`,
      ],
    });
  });

  it("pages at once when the retry is skipped, and when an owed retry never came", async () => {
    const { state, config, attempt, skipped } = world("last");
    let now = new Date("2026-11-27T02:02:00.000Z");
    const s = new MonitorService({ config, logger: silent, now: () => now });
    services.push(s);
    const a1 = attempt(1, "failed", "2026-11-27T02:01:00.000Z");
    await s.runOnce();
    expect(failures(state)).toEqual([]);
    // The schedule was paused when attempt 2 was due: the slot's retries are over.
    now = new Date("2026-11-27T02:07:00.000Z");
    const a2 = skipped(2, "2026-11-27T02:06:00.000Z");
    await s.runOnce();
    const pages = failures(state);
    expect(pages.map((m) => m.status)).toEqual(["firing"]);
    expect(pages[0]!.retry?.attempts).toEqual([
      `attempt 1 of 3: run ${a1} failed: exit 1`,
      `attempt 2 of 3: run ${a2} not started (paused)`,
    ]);
  });

  it("pages an attempt whose retry is past its time by more than the grace (no daemon started it)", async () => {
    const { state, config, attempt } = world("last");
    let now = new Date("2026-11-27T02:02:00.000Z");
    const s = new MonitorService({ config, logger: silent, now: () => now });
    services.push(s);
    attempt(1, "failed", "2026-11-27T02:01:00.000Z");
    await s.runOnce();
    now = new Date("2026-11-27T02:07:30.000Z"); // due at 02:06, within the grace
    await s.runOnce();
    expect(failures(state)).toEqual([]);
    now = new Date("2026-11-27T02:08:30.000Z"); // 02:06 + 2 minutes has passed
    await s.runOnce();
    expect(failures(state).map((m) => m.status)).toEqual(["firing"]);
  });

  it('page = "first": the first failure pages, saying when the next attempt starts; a retry that completes resolves it', async () => {
    const { state, config, attempt } = world("first");
    let now = new Date("2026-11-27T02:02:00.000Z");
    const s = new MonitorService({ config, logger: silent, now: () => now });
    services.push(s);
    const a1 = attempt(1, "failed", "2026-11-27T02:01:00.000Z");
    await s.runOnce();
    let pages = failures(state);
    expect(pages.map((m) => m.status)).toEqual(["firing"]);
    expect(pages[0]!.runId).toBe(a1);
    expect(pages[0]!.retry).toMatchObject({
      attempt: 1,
      of: 3,
      nextAt: "2026-11-27T02:06:00.000Z",
    });
    now = new Date("2026-11-27T02:08:00.000Z");
    const a2 = attempt(2, "completed", "2026-11-27T02:07:00.000Z");
    await s.runOnce();
    pages = failures(state);
    expect(pages.map((m) => m.status)).toEqual(["firing", "resolved"]);
    expect(pages[1]!.resolution).toBe(`run ${a2} completed`);
  });
});
