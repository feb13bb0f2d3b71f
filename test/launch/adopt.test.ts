import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readJournal } from "../../src/journal/reader.js";
import { watchAdoptedRun } from "../../src/scheduler/launch/adopt.js";
import {
  findProcessByRunId,
  isSameProcessAlive,
  readProcessStartTime,
} from "../../src/scheduler/launch/identity.js";
import { launchRun } from "../../src/scheduler/launch/launcher.js";
import { signalGroup } from "../../src/util/process.js";
import { presetSpec, tempDirs, waitFor } from "../fixtures/fake-harness-helpers.js";

const dirs = tempDirs();
afterEach(dirs.cleanup);

const started = (dir: string, runId: string) => () =>
  readJournal(join(dir, ".autoloop", "journal.jsonl")).items.some(
    (r) => r.run === runId && r.topic === "loop.start",
  );

describe("process identity", () => {
  it("reads a start time and rejects a pid whose start time differs (pid reuse)", () => {
    const startTime = readProcessStartTime(process.pid);
    expect(startTime).toMatch(/^\d+$/);
    expect(isSameProcessAlive(process.pid, startTime)).toBe(true);
    expect(isSameProcessAlive(process.pid, "1")).toBe(false);
    expect(isSameProcessAlive(2 ** 22 + 1)).toBe(false);
  });

  it("finds a run's harness by AUTOLOOP_CRON_RUN_ID, preferring the group leader", async () => {
    const dir = dirs.make();
    const spec = presetSpec(dir, "spawn-grandchild-and-hang", {
      env: { FAKE_HARNESS_PIDFILE: join(dir, "g.pid") },
    });
    const handle = await launchRun(spec);
    await waitFor("loop.start", started(dir, spec.runId));
    expect(findProcessByRunId(spec.runId)).toEqual({
      pid: handle.pid,
      startTime: handle.startTime,
    });
    expect(findProcessByRunId("nightly-20990101T0000-zzzzz")).toBeUndefined();
    handle.stop("test over");
    await handle.done;
  });
});

describe("watchAdoptedRun", () => {
  it("resolves interrupted when the process dies without a terminal record", async () => {
    const dir = dirs.make();
    const spec = presetSpec(dir, "hang");
    const original = await launchRun(spec);
    await waitFor("loop.start", started(dir, spec.runId));
    const adopted = watchAdoptedRun(
      {
        runId: spec.runId,
        kind: "preset",
        pid: original.pid!,
        startTime: original.startTime,
        cwd: dir,
        journalOffset: original.journalOffset,
      },
      { pollMs: 25 },
    );
    signalGroup(original.pid!, "SIGKILL");
    const outcome = await adopted.done;
    expect(outcome).toMatchObject({ status: "interrupted", basis: "lost" });
    await original.done;
  });

  it("takes the outcome from the journal once the process is gone", async () => {
    const dir = dirs.make();
    const spec = presetSpec(dir, "sigterm");
    const original = await launchRun(spec);
    await waitFor("loop.start", started(dir, spec.runId));
    const adopted = watchAdoptedRun(
      {
        runId: spec.runId,
        kind: "preset",
        pid: original.pid!,
        startTime: original.startTime,
        cwd: dir,
      },
      { pollMs: 25 },
    );
    // Someone else (not the watcher) stops the harness: its own `interrupted` record counts.
    signalGroup(original.pid!, "SIGTERM");
    expect(await adopted.done).toMatchObject({
      status: "interrupted",
      basis: "journal",
      stopReason: "interrupted",
    });
    await original.done;
  });

  it("enforces the remaining timeout and operator stops on the adopted group", async () => {
    const dir = dirs.make();
    const spec = presetSpec(dir, "hang");
    const original = await launchRun(spec);
    await waitFor("loop.start", started(dir, spec.runId));
    const kills: string[] = [];
    const adopted = watchAdoptedRun(
      {
        runId: spec.runId,
        kind: "preset",
        pid: original.pid!,
        cwd: dir,
        deadline: Date.now(),
        killGraceMs: 300,
      },
      { pollMs: 25, onKill: (cause) => kills.push(cause.by) },
    );
    adopted.stop("ignored: the timeout came first");
    expect(await adopted.done).toMatchObject({ status: "timed_out", basis: "timeout" });
    expect(kills).toEqual(["timeout"]);
    await original.done;
  });
});
