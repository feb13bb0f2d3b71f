import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { MonitorService } from "../../src/monitor/service.js";
import type { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { readPauseState } from "../../src/scheduler/schedules/pause-state.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { commandSchedule, silentLogger, startDaemon, writeCronConfig } from "../helpers/daemon.js";
import { enqueuedMessages } from "../helpers/outbox.js";
import { waitFor } from "../helpers/wait.js";

const daemons: SchedulerDaemon[] = [];
const monitors: MonitorService[] = [];
afterEach(async () => {
  for (const m of monitors.splice(0)) await m.stop();
  await Promise.all(daemons.splice(0).map((d) => d.shutdown("terminate", 5_000)));
  cleanupTempDirs();
});

describe("pause_after_failures", () => {
  it("pauses a schedule after N failed runs in a row, pages once, and resumes on request", async () => {
    const root = tempDir("autoloop-pause-fail-");
    const config = writeCronConfig(
      root,
      commandSchedule("broken", "process.exit(7)", "pause_after_failures = 2"),
      '\n[[channel]]\nname = "ops"\ntype = "email"\nfrom = "cron@example.com"\nto = ["ops@example.com"]\n',
    );
    const daemon = await startDaemon(config, silentLogger);
    daemons.push(daemon);
    const reason = await waitFor(
      () => readPauseState(config.stateDir).reasons?.broken,
      "the schedule paused by the scheduler",
      20_000,
      50,
    );
    expect(reason).toMatchObject({ by: "pause_after_failures", failures: 2 });
    expect(reason.runs).toHaveLength(2);
    // Paused: its next slots are skipped as paused, not run.
    await waitFor(
      () => daemon.ledger.listRuns({ schedule: "broken", limit: 1 })[0]?.skipCause === "paused",
      "a slot skipped as paused",
      10_000,
      50,
    );
    const ran = daemon.ledger
      .listRuns({ schedule: "broken" })
      .filter((r) => r.status !== "skipped");
    expect(ran.length).toBeLessThanOrEqual(3);

    const monitor = new MonitorService({ config, logger: silentLogger, daemon });
    monitors.push(monitor);
    await monitor.runOnce();
    await monitor.runOnce();
    const pages = () =>
      enqueuedMessages(config.stateDir).filter((m) => m.kind === "schedule_paused");
    expect(pages().map((m) => m.status)).toEqual(["firing"]);
    expect(pages()[0]!.title).toBe("Schedule broken paused after 2 failed runs in a row");

    const resumed = await execa(
      process.execPath,
      [AUTOLOOP_CRON, "resume", "broken", "--config", join(root, "autoloop-cron.toml")],
      { env: cleanEnv(), extendEnv: false, reject: false },
    );
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(readPauseState(config.stateDir).reasons).toBeUndefined();
    await monitor.runOnce();
    expect(pages().map((m) => m.status)).toEqual(["firing", "resolved"]);
    expect(pages()[1]!.resolution).toBe("schedule broken was resumed");
    const before = daemon.ledger
      .listRuns({ schedule: "broken" })
      .filter((r) => r.status !== "skipped").length;
    await waitFor(
      () =>
        daemon.ledger.listRuns({ schedule: "broken" }).filter((r) => r.status !== "skipped")
          .length > before,
      "a run after the resume",
      10_000,
      50,
    );
  }, 60_000);
});
