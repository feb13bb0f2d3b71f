// The monitor's liveness of a run the scheduler launched on another host: its heartbeat, not
// a pid that means nothing here (run_crashed, run_stalled).
import { utimesSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { HarnessLiveness } from "../../src/monitor/detect/harness-liveness.js";
import { heartbeatPath } from "../../src/scheduler/launch/heartbeat-file.js";
import { RunHeartbeats } from "../../src/scheduler/launch/heartbeats.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const RUN = "nightly-20260407T1200-abcde";

function launchedOn(host: string): string {
  const state = tempDir();
  const beats = new RunHeartbeats(state, 1000, { here: () => host });
  beats.start({ runId: RUN, schedule: "nightly", pid: 4242 });
  beats.close();
  return state;
}

describe("HarnessLiveness with heartbeats", () => {
  it("takes another host's run as alive while it beats, dead once three beats are missed", () => {
    const state = launchedOn("host-a");
    const asked: number[] = [];
    const liveness = new HarnessLiveness({
      isRunProcess: () => true,
      isHarnessLoop: () => true,
      here: () => "host-b",
    });
    const alive = (pid: number) => {
      asked.push(pid);
      return false; // pid 4242 here is nobody: it must not decide
    };
    const proc = { runId: RUN, pid: 4242 };
    expect(liveness.launched(RUN, proc, alive, { stateDir: state, now: Date.now() })).toEqual({
      alive: true,
      pid: 4242,
    });
    // A chain's step: its chain's process, and so its chain's heartbeat.
    const at = { stateDir: state, now: Date.now() };
    expect(liveness.launched("step-2-of-chain", proc, alive, at)).toEqual({
      alive: true,
      pid: 4242,
    });
    const later = Date.now() + 3100;
    expect(liveness.launched(RUN, proc, alive, { stateDir: state, now: later })).toEqual({
      alive: false,
      pid: 4242,
    });
    expect(asked).toEqual([]);
  });

  it("judges a run of this host by its process, whatever its heartbeat's age", () => {
    const state = launchedOn("host-a");
    const liveness = new HarnessLiveness({
      isRunProcess: () => true,
      isHarnessLoop: () => true,
      here: () => "host-a",
    });
    const proc = { runId: RUN, pid: 4242 };
    const at = { stateDir: state, now: Date.now() };
    expect(liveness.launched(RUN, proc, () => false, at)).toEqual({ alive: false, pid: 4242 });
    // Stale now, yet ours: the process decides.
    const path = heartbeatPath(state, RUN)!;
    utimesSync(path, new Date(0), new Date(0));
    expect(liveness.launched(RUN, proc, () => true, at)).toEqual({ alive: true, pid: 4242 });
  });
});
