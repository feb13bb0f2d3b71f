// Schedule budgets end to end, with the real claude CLI logged in against the scripted model
// server (which reports usage): a daily budget caps each run at what is left, skips the slot
// once spent and pages once, and the next day (a fake clock) runs again; spend read after a
// daemon kill -9 and restart matches a hand count of the journal.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { fieldNumber, type JournalRecord } from "../../src/journal/codec.js";
import { readJournal } from "../../src/journal/reader.js";
import { MonitorService } from "../../src/monitor/service.js";
import type { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { SchedulerDaemon as Daemon } from "../../src/scheduler/daemon/daemon.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { realClock } from "../../src/scheduler/timing/fire-queue.js";
import { AUTOLOOP_CRON, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { nextEvent, silentLogger, writeCronConfig } from "../helpers/daemon.js";
import { loggedInEnv, modelServerFor } from "../helpers/logged-in.js";
import type { ModelServer } from "../helpers/model-server/index.js";
import { enqueuedMessages } from "../helpers/outbox.js";
import { presetAgent } from "../helpers/preset-agent.js";
import { waitFor } from "../helpers/wait.js";

const DAY = 86_400_000;
const servers: ModelServer[] = [];
const daemons: SchedulerDaemon[] = [];
const monitors: MonitorService[] = [];
afterEach(async () => {
  for (const m of monitors.splice(0)) await m.stop();
  await Promise.all(daemons.splice(0).map((d) => d.shutdown("terminate", 10_000)));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  cleanupTempDirs();
});

const schedule = (budget: string, iterations = 1) => `[[schedule]]
name = "fixer"
cron = "0 0 1 1 *"
preset = "autofix"
objective = "Fix it"
project_dir = "../work"
max_iterations = ${iterations}
budget = ${budget}
`;

async function claudeServer(): Promise<ModelServer> {
  const server = await modelServerFor(
    "claude",
    presetAgent({ fixer: [{ answer: "Still investigating (iteration {iteration})." }] }),
  );
  servers.push(server);
  return server;
}

/** What the run's `backend.usage` records say it cost, summed by hand. */
function journalCost(journal: string, runId: string): number {
  return readJournal(journal)
    .items.filter((r: JournalRecord) => r.run === runId && r.topic === "backend.usage")
    .reduce((sum, r) => sum + (fieldNumber(r, "cost_usd") ?? 0), 0);
}

describe("a schedule's budget, with claude logged in", () => {
  it("caps runs at what is left, skips the slot once spent, pages once, and runs the next day", async () => {
    const server = await claudeServer();
    const root = tempDir("autoloop-budget-");
    const config = writeCronConfig(
      root,
      schedule("{ per_day = 5.0 }"),
      '\n[[channel]]\nname = "ops"\ntype = "email"\nfrom = "cron@example.com"\nto = ["ops@example.com"]\n',
    );
    let offset = 0;
    const clock = { ...realClock, now: () => Date.now() + offset };
    const daemon = new Daemon(config, {
      logger: silentLogger,
      env: loggedInEnv("claude", server),
      clock,
    });
    daemons.push(daemon);
    await daemon.start();
    const fire = async (): Promise<{
      ok: boolean;
      runId?: string;
      error?: string;
    }> => {
      const response = daemon.onSlot("fixer", new Date(clock.now()), "manual") as {
        ok: boolean;
        runId?: string;
        error?: string;
      };
      if (response.runId === undefined) return response;
      const ended = await nextEvent(daemon, "finished", (e) => e.runId === response.runId, 90_000);
      expect(ended.outcome.status).not.toBe("completed"); // max_iterations: stopped
      return response;
    };

    // The first run: $5 left today, so it may spend $5.
    const first = await fire();
    const ledger = () => RunLedger.open(config.stateDir, { logger: silentLogger });
    const one = ledger().replay(first.runId!)!;
    expect(one.summary.budgetUsd).toBe(5);
    expect(one.events[0]).toMatchObject({ event: "scheduled", budgetUsd: 5 });
    const argv = (one.events[0] as { argv: string[] }).argv;
    expect(argv.slice(argv.indexOf("--budget-usd"), argv.indexOf("--budget-usd") + 2)).toEqual([
      "--budget-usd",
      "5",
    ]);
    const c = one.summary.costUsd!;
    expect(c, JSON.stringify(one.summary)).toBeGreaterThan(0);
    const journal = join(root, "work", ".autoloop", "journal.jsonl");
    expect(c).toBeCloseTo(journalCost(journal, first.runId!), 6);

    // A day's budget of 1.5 runs: the second run gets what is left, about half a run.
    writeFileSync(
      join(root, "schedules", "test.toml"),
      schedule(`{ per_day = ${(1.5 * c).toFixed(6)} }`),
    );
    await nextEvent(daemon, "loaded", () => true, 20_000);
    const second = await fire();
    const two = ledger().replay(second.runId!)!.summary;
    expect(two.budgetUsd).toBeCloseTo(1.5 * c - c, 5);
    expect(two.costUsd).toBeGreaterThan(0);

    // Spent: the next slot is skipped, saying why, and nothing is launched.
    const third = await fire();
    expect(third.ok).toBe(false);
    expect(third.error).toContain("budget exhausted: fixer spent");
    const skipped = ledger().listRuns({ schedule: "fixer", limit: 1 })[0]!;
    expect(skipped).toMatchObject({ status: "skipped", skipCause: "budget_exhausted" });

    // `status` says so, from the files alone.
    const status = await execa(
      process.execPath,
      [AUTOLOOP_CRON, "status", "--config", join(root, "autoloop-cron.toml")],
      { reject: false },
    );
    expect(status.stdout).toMatch(/Spend:\n {2}SPENT fixer: today \$/);
    const report = await execa(
      process.execPath,
      [AUTOLOOP_CRON, "status", "--json", "--config", join(root, "autoloop-cron.toml")],
      { reject: false },
    );
    const [row] = JSON.parse(report.stdout).spend;
    expect(row.today.runs).toBe(2);
    expect(row.today.costUsd).toBeCloseTo(c + two.costUsd!, 6);

    // The monitor pages once for the day, however often it looks.
    const monitor = new MonitorService({
      config,
      logger: silentLogger,
      daemon,
      now: () => new Date(clock.now()),
    });
    monitors.push(monitor);
    await monitor.runOnce();
    await monitor.runOnce();
    const pages = () =>
      enqueuedMessages(config.stateDir).filter((m) => m.kind === "budget_exhausted");
    expect(pages().map((m) => m.status)).toEqual(["firing"]);

    // The next day (UTC, the schedule's zone) the budget holds again: resolved, and it runs.
    offset = DAY;
    await monitor.runOnce();
    expect(pages().map((m) => m.status)).toEqual(["firing", "resolved"]);
    const nextDay = await fire();
    expect(nextDay.runId).toBeDefined();
    expect(ledger().replay(nextDay.runId!)!.summary.budgetUsd).toBeCloseTo(1.5 * c, 5);
  }, 240_000);

  it("counts the same spend after a kill -9 of the daemon while a run goes on", async () => {
    const server = await claudeServer();
    const root = tempDir("autoloop-budget-kill-");
    const config = writeCronConfig(root, schedule("{ per_month = 50.0 }", 3));
    const configFile = join(root, "autoloop-cron.toml");
    const env = loggedInEnv("claude", server);
    const start = () =>
      execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", configFile], {
        env,
        extendEnv: false,
        reject: false,
      });
    const first = start();
    await waitFor(() => existsSync(join(config.stateDir, "daemon.json")), "the daemon", 30_000);
    const fired = await execa(
      process.execPath,
      [AUTOLOOP_CRON, "fire", "fixer", "--config", configFile],
      { env, extendEnv: false },
    );
    const runId = /fixer-\S+/.exec(`${fired.stdout}\n${fired.stderr}`)![0];
    const journal = join(root, "work", ".autoloop", "journal.jsonl");
    // Its first iteration has cost something: the daemon dies mid-run.
    await waitFor(() => journalCost(journal, runId) > 0, "the first iteration's usage", 60_000);
    first.kill("SIGKILL");
    await first;
    const second = start();
    try {
      const summary = await waitFor(
        () => {
          const s = RunLedger.open(config.stateDir, { logger: silentLogger }).replay(
            runId,
          )?.summary;
          return s?.finishedAt !== undefined ? s : undefined;
        },
        "the run's end, seen by the next daemon",
        90_000,
      );
      const spent = journalCost(journal, runId);
      expect(summary.costUsd).toBeCloseTo(spent, 6);
      // The next daemon booked what the harness reported, not the journal's word.
      expect(summary.spendBasis).toBe("harness");
      const report = await execa(
        process.execPath,
        [AUTOLOOP_CRON, "status", "--json", "--config", configFile],
        { env, extendEnv: false, reject: false },
      );
      const [row] = JSON.parse(report.stdout).spend;
      expect(row).toMatchObject({ schedule: "fixer", holds: "cost" });
      expect(row.thisMonth.costUsd).toBeCloseTo(spent, 6);
    } finally {
      second.kill("SIGTERM");
      await second;
    }
  }, 240_000);
});
