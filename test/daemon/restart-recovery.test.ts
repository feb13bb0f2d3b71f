import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/scheduler/config/config.js";
import type { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { signalGroup } from "../../src/util/process.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { nextEvent, silentLogger, startDaemon, writeCronConfig } from "../helpers/daemon.js";
import { waitFor } from "../helpers/wait.js";

const daemons: SchedulerDaemon[] = [];
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.shutdown("terminate", 5_000)));
  cleanupTempDirs();
});

const DEMO_SCHEDULE = `[[schedule]]
name = "report"
cron = "0 0 1 1 *"
preset = "demo"
objective = "Write the report"
project_dir = "../work"
env = { AUTOLOOP_DEMO_DELAY_MS = "700" }
`;

/** Starts `autoloop-cron start` as a child, fires the schedule, waits for the run's harness pid. */
async function daemonWithRunningRun(dir: string) {
  const config = writeCronConfig(dir, DEMO_SCHEDULE);
  const child = execa(
    process.execPath,
    [AUTOLOOP_CRON, "start", "--config", join(dir, "autoloop-cron.toml")],
    { env: cleanEnv(), reject: false },
  );
  await waitFor(() => {
    try {
      return (
        JSON.parse(readFileSync(join(config.stateDir, "daemon.json"), "utf8")).pid === child.pid
      );
    } catch {
      return false;
    }
  }, "the daemon to start");
  const fire = await execa(
    process.execPath,
    [AUTOLOOP_CRON, "fire", "report", "--config", join(dir, "autoloop-cron.toml")],
    { env: cleanEnv() },
  );
  const runId = fire.stdout.trim();
  const pending = await waitFor(
    () =>
      RunLedger.open(config.stateDir, { logger: silentLogger })
        .pending()
        .find((e) => e.runId === runId && e.pid !== undefined),
    "the run to start",
  );
  return { config, child, runId, pid: pending.pid! };
}

describe("crash recovery", () => {
  it("adopts a run that outlived a kill -9 of the daemon, and never launches its slot twice", async () => {
    const { config, child, runId } = await daemonWithRunningRun(tempDir());
    child.kill("SIGKILL");
    await child;
    const d = await startDaemon(config);
    daemons.push(d);
    const adopted = RunLedger.open(config.stateDir, { logger: silentLogger }).replay(runId);
    expect(adopted?.events.map((e) => e.event)).toContain("adopted");
    const finished = await nextEvent(d, "finished", (e) => e.runId === runId, 30_000);
    expect(finished.outcome.status).toBe("completed");
    const runs = d.ledger.listRuns({ schedule: "report" });
    expect(runs.filter((r) => r.slot === adopted?.summary.slot)).toHaveLength(1);
    expect(d.ledger.replay(runId)?.events.map((e) => e.event)).toEqual([
      "scheduled",
      "started",
      "adopted",
      "finished",
    ]);
  });

  it("marks a run interrupted when the daemon and the run died together", async () => {
    const { config, child, runId, pid } = await daemonWithRunningRun(tempDir());
    child.kill("SIGKILL");
    signalGroup(pid, "SIGKILL");
    await child;
    const d = await startDaemon(config);
    daemons.push(d);
    const summary = d.ledger.replay(runId)?.summary;
    expect(summary?.status).toBe("interrupted");
    expect(d.ledger.pending()).toHaveLength(0);
  });
});

describe("a kill -9 in a crowded second", () => {
  // The ledger commits in groups and pending.json trails the claims by a turn: whatever the
  // moment of the kill, every claimed slot ends up adopted or interrupted, none runs twice.
  it("loses no run: each claimed slot is adopted, or interrupted when it never started", async () => {
    const dir = tempDir();
    const at = new Date(Math.ceil((Date.now() + 3_000) / 1000) * 1000);
    const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
    const script = "setTimeout(() => {}, 6000)";
    let schedules = "";
    for (let i = 0; i < 40; i++)
      schedules += `[[schedule]]\nname = "s${i}"\ncron = "${cron}"\ntimezone = "UTC"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(script)}]\nproject_dir = "../work"\n`;
    writeCronConfig(dir, schedules);
    const toml = join(dir, "autoloop-cron.toml");
    writeFileSync(toml, `max_concurrent_runs = 40\n${readFileSync(toml, "utf8")}`);
    const config = loadConfig(toml);
    const child = execa(
      process.execPath,
      [AUTOLOOP_CRON, "start", "--config", join(dir, "autoloop-cron.toml")],
      { env: cleanEnv(), reject: false },
    );
    const slots = join(config.stateDir, "slots.jsonl");
    const claims = () => {
      try {
        return readFileSync(slots, "utf8").split("\n").filter(Boolean).length;
      } catch {
        return 0;
      }
    };
    let fired = 0;
    child.stdout?.on("data", (chunk: Buffer) => {
      fired += chunk.toString().split('"msg":"fired"').length - 1;
    });
    // Killed while the burst's launches are on their way (some spawned, others claimed or not).
    await waitFor(() => fired >= 5 && claims() >= 10, "the burst's first runs", 15_000);
    child.kill("SIGKILL");
    await child;
    const d = await startDaemon(config);
    daemons.push(d);
    const ledger = RunLedger.open(config.stateDir, { logger: silentLogger });
    const runIds = readFileSync(slots, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).runId as string);
    expect(new Set(runIds).size).toBe(runIds.length);
    for (const runId of runIds) {
      const events = ledger.replay(runId)?.events.map((e) => e.event) ?? [];
      if (events.includes("started")) expect(events).toContain("adopted");
      // Killed between the spawn and its `started` line: found by its environment, or never spawned.
      else expect(events.includes("adopted") || events.at(-1) === "interrupted").toBe(true);
    }
    // Every run that was spawned is watched by the new daemon: none is left running unowned.
    const pending = new Set(d.ledger.pending().map((e) => e.runId));
    const started = runIds.filter((id) =>
      ledger.replay(id)?.events.some((e) => e.event === "started" || e.event === "adopted"),
    );
    expect(started.length).toBeGreaterThan(0);
    for (const id of started) expect(pending.has(id) || d.active.has(id)).toBe(true);
    await d.shutdown("terminate", 5_000);
  }, 60_000);
});

describe("shutdown and catch-up", () => {
  it("detaches running runs on shutdown; the next daemon adopts them", async () => {
    const dir = tempDir();
    const { commandSchedule } = await import("../helpers/daemon.js");
    const config = writeCronConfig(
      dir,
      commandSchedule("long", "setTimeout(() => {}, 2500)").replace('"* * * * * *"', '"0 0 1 1 *"'),
    );
    const first = await startDaemon(config);
    void first.control({ action: "fire", schedule: "long" });
    const fired = await nextEvent(first, "fire");
    await first.shutdown("detach");
    const second = await startDaemon(config);
    daemons.push(second);
    expect(second.active.has(fired.runId)).toBe(true);
    const ended = await nextEvent(second, "finished", (e) => e.runId === fired.runId);
    // A command run adopted after a restart cannot report its exit code: it ends as lost.
    expect(ended.outcome.status).toBe("interrupted");
    expect(second.ledger.replay(fired.runId)?.events.map((e) => e.event)).toContain("adopted");
  });

  it("catches up slots missed while the daemon was down, per catch_up", async () => {
    const dir = tempDir();
    const { commandSchedule } = await import("../helpers/daemon.js");
    const extra = 'catch_up = "all"\ncatch_up_window = "1m"\noverlap = "allow"';
    const config = writeCronConfig(dir, commandSchedule("tick", "", extra));
    const first = await startDaemon(config);
    await nextEvent(first, "fire");
    await first.shutdown("terminate", 5_000);
    await new Promise((r) => setTimeout(r, 2_500)); // the daemon is down for a few slots
    const second = await startDaemon(config);
    daemons.push(second);
    const caughtUp = await waitFor(() => {
      const runs = second.ledger
        .listRuns({ schedule: "tick" })
        .filter((r) => r.trigger === "catch_up");
      return runs.length >= 2 && runs;
    }, "the missed slots to be caught up");
    expect(caughtUp.length).toBeGreaterThanOrEqual(2);
    const slots = second.ledger.listRuns({ schedule: "tick" }).map((r) => r.slot);
    expect(new Set(slots).size).toBe(slots.length);
  });
});
