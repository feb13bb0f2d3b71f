import { rmSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { readJournal } from "../../src/journal/reader.js";
import { recoverPending, resumePending } from "../../src/scheduler/daemon/recovery.js";
import { launchRun, type RunHandle } from "../../src/scheduler/launch/launcher.js";
import { adoptRecorded } from "../../src/scheduler/launch/recorded-launch.js";
import { launchArgv } from "../../src/scheduler/launch/spec.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { signalGroup } from "../../src/util/process.js";
import {
  presetSpec,
  recordingLogger,
  tempDirs,
  waitFor,
} from "../fixtures/fake-harness-helpers.js";

const dirs = tempDirs();
afterEach(dirs.cleanup);

const quiet = () => recordingLogger().logger;
type Spec = ReturnType<typeof presetSpec>;

/** Records a run as scheduled (and started, when a handle is given) in the daemon that "dies". */
function recordRun(state: string, spec: Spec, handle?: RunHandle): void {
  const ledger = RunLedger.open(state, { logger: quiet() });
  const { runId, schedule, slot, cwd } = spec;
  ledger.schedule({
    runId,
    schedule,
    slot,
    cwd,
    trigger: "cron",
    kind: "preset",
    argv: launchArgv(spec),
  });
  if (handle?.pid !== undefined) {
    const { pid, startTime, outputPath, journalPath, journalOffset } = handle;
    ledger.started(runId, { pid, startTime, outputPath, journalPath, journalOffset });
  }
}

/** A run that ended while its daemon was down: in the ledger as started, its journal ended. */
async function finishedWhileDown() {
  const dir = dirs.make();
  const state = join(dir, "state");
  const spec = presetSpec(dir, "max-iterations");
  const original = await launchRun(spec);
  await original.done;
  recordRun(state, spec, original);
  return { state, spec };
}

const loopStarted = (spec: Spec) => () =>
  readJournal(join(spec.cwd, ".autoloop", "journal.jsonl")).items.some(
    (r) => r.run === spec.runId && r.topic === "loop.start",
  );

describe("recoverPending after a daemon restart", () => {
  it("adopts a live run, then records it interrupted when it dies without a terminal record", async () => {
    const dir = dirs.make();
    const state = join(dir, "state");
    const spec = presetSpec(dir, "hang");
    const original = await launchRun(spec);
    recordRun(state, spec, original);
    await waitFor("loop.start", loopStarted(spec));

    const ledger = RunLedger.open(state, { logger: quiet() });
    const actions = recoverPending(ledger);
    expect(actions).toEqual([
      { kind: "adopt", entry: expect.objectContaining({ runId: spec.runId, pid: original.pid }) },
    ]);
    const action = actions[0]!;
    if (action.kind !== "adopt") throw new Error("expected adopt");
    const adopted = adoptRecorded(ledger, action.entry, { pollMs: 25 });
    signalGroup(original.pid!, "SIGKILL");
    expect(await adopted.done).toMatchObject({ status: "interrupted", basis: "lost" });
    await original.done;

    const replay = RunLedger.open(state, { logger: quiet() }).replay(spec.runId);
    expect(replay?.events.map((e) => e.event)).toEqual([
      "scheduled",
      "started",
      "adopted",
      "finished",
    ]);
    expect(replay?.summary.status).toBe("interrupted");
    expect(ledger.pending()).toEqual([]);
  });

  it("marks a dead pid with no terminal record interrupted", async () => {
    const dir = dirs.make();
    const state = join(dir, "state");
    const spec = presetSpec(dir, "crash");
    const original = await launchRun(spec);
    await original.done;
    recordRun(state, spec, original);
    const ledger = RunLedger.open(state, { logger: quiet() });
    expect(recoverPending(ledger)).toEqual([expect.objectContaining({ kind: "interrupted" })]);
    expect(ledger.pending()).toEqual([]);
    expect(RunLedger.open(state, { logger: quiet() }).latestRun("nightly")).toMatchObject({
      status: "interrupted",
    });
  });

  it("closes a run that finished while the daemon was down from its journal", async () => {
    const { state } = await finishedWhileDown();
    const ledger = RunLedger.open(state, { logger: quiet() });
    const [action] = recoverPending(ledger);
    expect(action).toMatchObject({
      kind: "finished",
      outcome: { status: "failed", stopReason: "max_iterations" },
    });
    expect(ledger.latestRun("nightly")).toMatchObject({
      status: "failed",
      stopReason: "max_iterations",
    });
  });

  it("tells of a run that finished while the daemon was down (its pull request is owed)", async () => {
    const { state, spec } = await finishedWhileDown();
    const ended: unknown[] = [];
    const log = pino({ level: "silent" });
    resumePending(RunLedger.open(state, { logger: log }), log, () => {}, {
      ended: (run) => ended.push(run),
    });
    expect(ended).toEqual([
      expect.objectContaining({
        schedule: "nightly",
        runId: spec.runId,
        outcome: expect.objectContaining({ status: "failed" }),
      }),
    ]);
  });

  it("a run recorded without a pid is adopted when a process carries its run id", async () => {
    const dir = dirs.make();
    const state = join(dir, "state");
    const spec = presetSpec(dir, "hang");
    const original = await launchRun(spec);
    recordRun(state, spec); // crashed between spawn and `started`
    await waitFor("loop.start", loopStarted(spec));
    const [action] = recoverPending(RunLedger.open(state, { logger: quiet() }));
    expect(action).toMatchObject({
      kind: "adopt",
      entry: { pid: original.pid, startTime: original.startTime },
    });
    original.stop("test over");
    await original.done;
  });

  it("a run without a pid and without a process is interrupted (never started or lost)", () => {
    const dir = dirs.make();
    const state = join(dir, "state");
    recordRun(state, presetSpec(dir, "hang"));
    const [action] = recoverPending(RunLedger.open(state, { logger: quiet() }));
    expect(action).toMatchObject({
      kind: "interrupted",
      reason: expect.stringContaining("never started"),
    });
  });

  it("a reused pid (same pid, other start time) is not adopted", () => {
    const dir = dirs.make();
    const state = join(dir, "state");
    const spec = presetSpec(dir, "hang");
    const fake = {
      pid: process.pid,
      startTime: "1",
      outputPath: "/o",
      journalPath: "/j",
      journalOffset: 0,
    };
    recordRun(state, spec, fake as unknown as RunHandle);
    const [action] = recoverPending(RunLedger.open(state, { logger: quiet() }));
    expect(action?.kind).toBe("interrupted");
  });

  // kill -9 between the ledger's writes: the slot is claimed (it never runs twice) and the
  // run is not lost from the ledger.
  describe("a daemon killed between claiming a slot and writing pending.json", () => {
    it("a run with only its `scheduled` event is marked interrupted, never started", () => {
      const dir = dirs.make();
      const state = join(dir, "state");
      const spec = presetSpec(dir, "hang");
      recordRun(state, spec);
      rmSync(join(state, "pending.json"));
      const ledger = RunLedger.open(state, { logger: quiet() });
      expect(ledger.pending()).toEqual([]);
      expect(recoverPending(ledger)).toEqual([
        expect.objectContaining({ kind: "interrupted", reason: expect.stringContaining("never") }),
      ]);
      const after = RunLedger.open(state, { logger: quiet() });
      expect(after.latestRun("nightly")).toMatchObject({
        runId: spec.runId,
        status: "interrupted",
      });
      expect(recoverPending(after)).toEqual([]);
    });

    it("a claim with no run log or index line is recorded as interrupted under its slot", () => {
      const dir = dirs.make();
      const state = join(dir, "state");
      const spec = presetSpec(dir, "hang");
      recordRun(state, spec);
      const ledger0 = RunLedger.open(state, { logger: quiet() });
      const runFile = ledger0.runFilePath(spec.runId)!;
      // Only slots.jsonl made it to disk.
      for (const f of [runFile, join(state, "pending.json"), join(state, "runs", "index.jsonl")])
        rmSync(f);
      const ledger = RunLedger.open(state, { logger: quiet() });
      expect(ledger.hasSlot(`nightly@${spec.slot.toISOString()}`)).toBe(true);
      expect(recoverPending(ledger)).toEqual([
        {
          kind: "interrupted",
          entry: { runId: spec.runId, schedule: "nightly", slot: spec.slot.toISOString() },
          reason: expect.stringContaining("right after claiming the slot"),
        },
      ]);
      const after = RunLedger.open(state, { logger: quiet() });
      expect(after.latestRun("nightly")).toMatchObject({
        runId: spec.runId,
        schedule: "nightly",
        slot: spec.slot.toISOString(),
        status: "interrupted",
      });
      expect(recoverPending(after)).toEqual([]);
    });

    it("a live run missing from pending.json is adopted and listed again", async () => {
      const dir = dirs.make();
      const state = join(dir, "state");
      const spec = presetSpec(dir, "hang");
      const original = await launchRun(spec);
      recordRun(state, spec, original);
      rmSync(join(state, "pending.json")); // as if its rewrite after `started` had failed
      await waitFor("loop.start", loopStarted(spec));
      const ledger = RunLedger.open(state, { logger: quiet() });
      expect(recoverPending(ledger)).toEqual([
        { kind: "adopt", entry: expect.objectContaining({ runId: spec.runId, pid: original.pid }) },
      ]);
      expect(ledger.pending().map((e) => e.runId)).toEqual([spec.runId]);
      original.stop("test over");
      await original.done;
    });
  });
});
