// One admission path: `fire` (Kubernetes CronJobs, systemd timers) and the daemon decide
// slots with the same code; a full queue is a skip like any other; no listener can stop
// the daemon.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import type { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { isGroupAlive } from "../../src/util/process.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import {
  capturingLogger,
  commandSchedule,
  nextEvent,
  silentLogger,
  startDaemon,
  writeCronConfig,
} from "../helpers/daemon.js";
import { waitFor } from "../helpers/wait.js";

const daemons: SchedulerDaemon[] = [];
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.shutdown("terminate", 5_000)));
  cleanupTempDirs();
});

describe("the daemon's admission", () => {
  it("records, logs and announces a slot skipped because the queue is full", async () => {
    const { logger, lines } = capturingLogger();
    const config = writeCronConfig(
      tempDir(),
      commandSchedule("busy", "setTimeout(() => {}, 30000)", 'overlap = "queue"').replace(
        '"* * * * * *"',
        '"0 0 1 1 *"',
      ),
    );
    const d = await startDaemon(config, logger);
    daemons.push(d);
    const skipped: string[] = [];
    d.on("skipped", (e) => skipped.push(`${e.cause}: ${e.detail}`));
    const base = Date.parse("2030-01-01T00:00:00Z");
    d.onSlot("busy", new Date(base), "manual");
    for (let i = 1; i <= 11; i++) d.onSlot("busy", new Date(base + i * 1000), "manual");
    expect(skipped).toEqual(["overlap: the queue is full (10 slots of busy waiting)"]);
    const line = lines.find((l) => String(l.msg).includes("the queue is full"));
    expect(line).toMatchObject({ schedule: "busy", cause: "overlap" });
    const ledger = RunLedger.open(config.stateDir, { logger: silentLogger });
    const runs = ledger.listRuns({ schedule: "busy" }).filter((r) => r.status === "skipped");
    expect(runs.map((r) => r.detail)).toEqual(["the queue is full (10 slots of busy waiting)"]);
  });

  it("carries on when an event listener throws", async () => {
    const { logger, lines } = capturingLogger();
    const d = await startDaemon(
      writeCronConfig(tempDir(), commandSchedule("tick", "process.exit(0)")),
      logger,
    );
    daemons.push(d);
    d.on("fire", () => {
      throw new Error("a broken metrics listener");
    });
    const first = await nextEvent(d, "finished");
    const second = await nextEvent(d, "finished", (e) => e.runId !== first.runId);
    expect(second.outcome.status).toBe("completed");
    expect(lines.some((l) => l.msg === "a daemon event listener failed; carrying on")).toBe(true);
  });
});

describe("fire without a daemon, overlap = replace", () => {
  it("starts the new run only once the old one has ended, as the daemon does", async () => {
    const root = tempDir("autoloop-replace-");
    mkdirSync(join(root, "schedules"));
    mkdirSync(join(root, "work"));
    const config = join(root, "autoloop-cron.toml");
    writeFileSync(config, 'state_dir = "state"\n[http]\nlisten = ""\n');
    // The old run takes its time to stop: SIGTERM is caught, it exits 1 s later.
    const slow =
      "process.on('SIGTERM', () => setTimeout(() => process.exit(0), 1000)); setInterval(() => {}, 1000)";
    writeFileSync(
      join(root, "schedules", "s.toml"),
      `[[schedule]]\nname = "deploy"\ncron = "0 3 * * *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(slow)}]\nproject_dir = "../work"\noverlap = "replace"\n`,
    );
    const fire = () =>
      execa(process.execPath, [AUTOLOOP_CRON, "fire", "deploy", "--config", config], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      });
    const first = fire();
    const state = join(root, "state");
    const old = await waitFor(() => {
      const pending = readPendingPid(state);
      return pending !== undefined && isGroupAlive(pending.pid) ? pending : undefined;
    }, "the first run's pid in pending.json");
    const second = fire();
    const newer = await waitFor(() => {
      const pending = readPendingPid(state);
      return pending !== undefined && pending.runId !== old.runId ? pending : undefined;
    }, "the second run's pid");
    // By the time the new run had a pid, the old group was gone.
    expect(isGroupAlive(old.pid)).toBe(false);
    const ledger = RunLedger.open(state, { logger: silentLogger });
    expect(ledger.replay(old.runId)?.summary.killedBy).toBe("replace");
    process.kill(-newer.pid, "SIGKILL");
    await Promise.all([first, second]);
  }, 60_000);
});

function readPendingPid(state: string): { runId: string; pid: number } | undefined {
  try {
    const entries = JSON.parse(readFileSync(join(state, "pending.json"), "utf8")) as Array<{
      runId: string;
      pid?: number;
    }>;
    const last = entries.at(-1);
    return last?.pid === undefined ? undefined : { runId: last.runId, pid: last.pid };
  } catch {
    return undefined;
  }
}
