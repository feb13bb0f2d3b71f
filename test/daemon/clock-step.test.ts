// The wall clock stepped back under a running daemon (its clock offset by the test; timers and
// processes real): every schedule is planned again from the new time; one that fires more often
// than the step runs its slots again, one that fires less often never runs a slot twice.
import { afterEach, describe, expect, it } from "vitest";
import { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { realClock } from "../../src/scheduler/timing/fire-queue.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { capturingLogger, commandSchedule, writeCronConfig } from "../helpers/daemon.js";
import { waitFor } from "../helpers/wait.js";

let daemon: SchedulerDaemon | undefined;
afterEach(async () => {
  await daemon?.shutdown();
  daemon = undefined;
  cleanupTempDirs();
});

describe("a clock that steps back", () => {
  it("re-plans every schedule and is logged; frequent ones repeat their slots, slower ones do not", async () => {
    const fast = commandSchedule("fast", "0"); // every second
    const slow = commandSchedule("slow", "0").replace(
      'cron = "* * * * * *"',
      'cron = "*/20 * * * * *"',
    );
    const config = writeCronConfig(tempDir("autoloop-clock-"), fast + slow);
    let offset = 0;
    const { logger, lines } = capturingLogger();
    daemon = new SchedulerDaemon(config, {
      logger,
      clock: { ...realClock, now: () => Date.now() + offset },
    });
    await daemon.start();
    const runs = (schedule: string) =>
      RunLedger.open(config.stateDir, { logger })
        .listRuns({ schedule })
        .filter((r) => r.status !== "skipped");
    await waitFor(() => runs("fast").length >= 3, "fast to fire a few times", 15_000, 100);

    offset = -10_000; // NTP steps the clock back 10 s
    const stepped = await waitFor(
      () => lines.find((l) => String(l.msg).startsWith("the wall clock stepped back")),
      "the step to be noticed",
      15_000,
      50,
    );
    expect(stepped.msg).toContain("schedules that fire more often than that run their slots again");
    // fast (every second) runs slots it had already run; no slot runs twice under one key.
    // Slots before any it ran come first, then the ones it ran before the step, again.
    const ranTwice = () => {
      const slots = runs("fast").map((r) => r.slot);
      return new Set(slots).size < slots.length;
    };
    await waitFor(ranTwice, "fast to run a slot again", 30_000, 100);
    // slow (every 20 s) never runs a slot twice.
    const slowSlots = runs("slow").map((r) => r.slot);
    expect(new Set(slowSlots).size).toBe(slowSlots.length);
  }, 60_000);
});
