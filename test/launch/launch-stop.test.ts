// A launch's stop before its spawn: git never started once stopped, and a stop while the
// process is being spawned reaches the process as soon as there is one.
import { describe, expect, it } from "vitest";
import { PendingLaunch } from "../../src/scheduler/launch/launch-stop.js";
import type { RunHandle } from "../../src/scheduler/launch/launcher.js";
import { runGit } from "../../src/util/git-run.js";

function handle(stops: string[]): RunHandle {
  return {
    ...{ runId: "r", pid: 1, startTime: undefined, journalPath: "j", journalOffset: 0 },
    ...{ outputPath: "o", done: new Promise(() => {}), stop: (why: string) => stops.push(why) },
  };
}

describe("a launch stopped before its spawn", () => {
  it("aborts the fetch, and then spawns nothing", () => {
    const launch = new PendingLaunch();
    launch.stop("not today");
    expect(launch.signal.aborted).toBe(true);
    expect(launch.stoppedBy).toEqual({ by: "operator", reason: "not today" });
    expect(launch.spawning()).toBe(false);
  });

  it("takes the timeout and the shutdown only while fetching", () => {
    const timedOut = new PendingLaunch();
    timedOut.expire();
    expect(timedOut.stoppedBy).toEqual({ by: "timeout" });
    const spawning = new PendingLaunch();
    expect(spawning.spawning()).toBe(true);
    spawning.interrupt();
    spawning.expire();
    expect(spawning.stoppedBy).toBeUndefined();
  });

  it("hands a stop that came during the spawn to the process", () => {
    const launch = new PendingLaunch();
    launch.spawning();
    launch.stop("first");
    launch.stop("second");
    const stops: string[] = [];
    launch.spawned(handle(stops));
    expect(stops).toEqual(["first"]);
    launch.stop("later");
    expect(stops).toEqual(["first", "later"]);
  });

  it("starts no git once stopped", async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await runGit(process.cwd(), ["version"], { signal: controller.signal });
    expect(r).toMatchObject({ ok: false, canceled: true, exitCode: undefined });
  });
});
