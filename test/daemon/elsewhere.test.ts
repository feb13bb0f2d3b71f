// A daemon's slot policy counts the runs other hosts launched over the same state dir, by
// their heartbeats: a pid from another host would mean nothing here.
import { afterEach, describe, expect, it } from "vitest";
import { slotCourse } from "../../src/scheduler/admission/carry-out.js";
import type { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { RunHeartbeats } from "../../src/scheduler/launch/heartbeats.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { commandSchedule, nextEvent, startDaemon, writeCronConfig } from "../helpers/daemon.js";

const daemons: SchedulerDaemon[] = [];
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.shutdown("terminate", 5_000)));
  cleanupTempDirs();
});

const FOREIGN = newScheduledRunId("hold", new Date("2026-04-07T12:00:00Z"));
const there = [{ runId: FOREIGN, schedule: "hold", host: "host-x" }];

describe("runs launched on another host", () => {
  it('keep a daemon\'s overlap = "skip" from launching until their heartbeat goes', async () => {
    const config = writeCronConfig(
      tempDir("autoloop-elsewhere-"),
      commandSchedule("hold", "process.exit(0)"),
    );
    const beats = new RunHeartbeats(config.stateDir, 200, { here: () => "host-x" });
    beats.start({ runId: FOREIGN, schedule: "hold", pid: 4242 });
    try {
      const daemon = await startDaemon(config);
      daemons.push(daemon);
      const launched: string[] = [];
      daemon.on("fire", ({ runId }) => launched.push(runId));
      const skipped = await nextEvent(daemon, "skipped");
      expect(skipped).toMatchObject({ schedule: "hold", cause: "overlap" });
      expect(skipped.detail).toContain(FOREIGN);
      expect(launched).toEqual([]);
      beats.end(FOREIGN); // that run ended: its launcher removed its heartbeat
      await nextEvent(daemon, "fire", ({ schedule }) => schedule === "hold");
    } finally {
      beats.close();
    }
  });

  it("turn a replace or a queue into a skip: their end is not seen here, their group not ours", () => {
    const ask = {
      schedule: "hold",
      slot: new Date("2026-04-07T12:01:00Z"),
      trigger: "cron" as const,
    };
    const replace = slotCourse({ kind: "replace", stop: [FOREIGN] }, ask, "possible", there);
    expect(replace).toMatchObject({ kind: "skip", skip: { cause: "overlap" } });
    if (replace.kind !== "skip") throw new Error("expected a skip");
    expect(replace.skip.detail).toBe(
      `run ${FOREIGN} of hold runs on host host-x, which this one can neither wait for nor stop (overlap = "replace"): skipped; stop it on that host`,
    );
    const queue = { kind: "queue", why: "overlap", detail: "waits" } as const;
    expect(slotCourse(queue, ask, "possible", there).kind).toBe("skip");
    // Only overlap is about that run: a full house here still waits.
    const full = { kind: "queue", why: "max_concurrent", detail: "waits" } as const;
    expect(slotCourse(full, ask, "possible", there).kind).toBe("queue");
    expect(slotCourse(queue, ask, "possible").kind).toBe("queue");
  });
});
