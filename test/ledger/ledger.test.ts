import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { launchRecorded } from "../../src/scheduler/launch/recorded-launch.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { loadPending } from "../../src/scheduler/ledger/pending.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";
import { slotKey } from "../../src/scheduler/ledger/slots.js";
import { presetSpec, recordingLogger, tempDirs } from "../fixtures/fake-harness-helpers.js";

const dirs = tempDirs();
afterEach(dirs.cleanup);

const quiet = () => recordingLogger().logger;
const slotAt = (minute: number) => new Date(Date.UTC(2026, 3, 7, 12, minute));

function plan(runId: string, slot: Date, schedule = "nightly") {
  return {
    runId,
    schedule,
    slot,
    trigger: "cron" as const,
    kind: "preset" as const,
    argv: ["autoloop"],
    cwd: "/p",
  };
}

describe("launchRecorded: the ledger follows a run", () => {
  it("writes scheduled, started, finished; pending.json holds the pid only while running", async () => {
    const dir = dirs.make();
    const state = join(dir, "state");
    const ledger = RunLedger.open(state, { logger: quiet() });
    const spec = presetSpec(dir, "hang");
    const launch = await launchRecorded(ledger, spec, "cron");
    if (launch.kind !== "launched") throw new Error("expected a launch");
    const pending = loadPending(join(state, "pending.json"));
    expect(pending).toEqual([
      expect.objectContaining({
        runId: spec.runId,
        pid: launch.handle.pid,
        key: "nightly@2026-04-07T12:00:00.000Z",
      }),
    ]);
    expect(ledger.latestRun("nightly")).toMatchObject({
      status: "running",
      pid: launch.handle.pid,
    });

    launch.handle.stop("operator asked");
    const outcome = await launch.handle.done;
    expect(outcome.status).toBe("killed");
    expect(loadPending(join(state, "pending.json"))).toEqual([]);

    const replay = RunLedger.open(state, { logger: quiet() }).replay(spec.runId);
    expect(replay?.events.map((e) => e.event)).toEqual([
      "scheduled",
      "started",
      "killed",
      "finished",
    ]);
    expect(replay?.events[0]).toMatchObject({
      trigger: "cron",
      argv: expect.arrayContaining(["--run-id", spec.runId]),
    });
    expect(replay?.events[2]).toMatchObject({ by: "operator", reason: "operator asked" });
    expect(replay?.summary).toMatchObject({
      status: "killed",
      killedBy: "operator",
      schedule: "nightly",
    });
  });

  it("records timeouts as killed by timeout, then finished timed_out", async () => {
    const dir = dirs.make();
    const ledger = RunLedger.open(join(dir, "state"), { logger: quiet() });
    const spec = presetSpec(dir, "hang", { timeoutMs: 300 });
    const launch = await launchRecorded(ledger, spec, "cron");
    if (launch.kind !== "launched") throw new Error("expected a launch");
    expect((await launch.handle.done).status).toBe("timed_out");
    const events = ledger.replay(spec.runId)?.events ?? [];
    expect(events.map((e) => e.event)).toEqual(["scheduled", "started", "killed", "finished"]);
    expect(events[2]).toMatchObject({ by: "timeout" });
  });

  it("never launches a slot twice, even after a crash before `started`", async () => {
    const dir = dirs.make();
    const state = join(dir, "state");
    const slot = slotAt(0);
    const runId = newScheduledRunId("nightly", slot);
    expect(RunLedger.open(state, { logger: quiet() }).schedule(plan(runId, slot))).toMatchObject({
      kind: "claimed",
    });
    // kill -9 here: nothing else is written. A new daemon opens the ledger.
    const reopened = RunLedger.open(state, { logger: quiet() });
    expect(reopened.hasSlot(slotKey("nightly", slot))).toBe(true);
    const spec = presetSpec(dir, "complete", { runId: newScheduledRunId("nightly", slot), slot });
    expect(await launchRecorded(reopened, spec, "catch_up")).toEqual({ kind: "duplicate", runId });
    expect(reopened.pending()).toEqual([expect.objectContaining({ runId })]);
    expect(reopened.pending()[0]?.pid).toBeUndefined();
  });
});

describe("RunLedger files and queries", () => {
  it("indexes runs by the slot's UTC date and replays them", () => {
    const state = join(dirs.make(), "state");
    const ledger = RunLedger.open(state, { logger: quiet() });
    const slot = new Date("2026-04-07T23:30:00-05:00"); // 2026-04-08 in UTC
    const runId = newScheduledRunId("nightly", slot);
    ledger.schedule(plan(runId, slot));
    const index = readFileSync(join(state, "runs", "index.jsonl"), "utf8");
    expect(JSON.parse(index)).toEqual({ runId, date: "2026-04-08", schedule: "nightly" });
    const file = join(state, "runs", "2026-04-08", `${runId}.jsonl`);
    expect(ledger.runFilePath(runId)).toBe(file);
    const line = JSON.parse(readFileSync(file, "utf8"));
    expect(Object.keys(line).slice(0, 3)).toEqual(["ts", "event", "runId"]);
    expect(RunLedger.open(state, { logger: quiet() }).replay(runId)?.summary).toMatchObject({
      status: "pending",
      slot: slot.toISOString(),
    });
  });

  it("after the clock stepped back, repeats a slot only for the schedules it is told to", () => {
    const ledger = RunLedger.open(join(dirs.make(), "state"), { logger: quiet() });
    const slot = new Date("2026-04-07T10:00:00Z");
    const claim = (schedule: string, at = slot) =>
      ledger.schedule({ ...plan(newScheduledRunId(schedule, at), at), schedule }).kind;
    expect(claim("fast")).toBe("claimed");
    expect(claim("slow")).toBe("claimed");
    ledger.clockSteppedBack(
      new Date("2026-04-07T09:30:00Z"),
      new Date("2026-04-07T10:30:00Z"),
      (s) => s === "fast",
    );
    expect(claim("fast")).toBe("claimed"); // again, under a key of its own
    expect(claim("fast")).toBe("duplicate"); // but only once per step
    expect(claim("slow")).toBe("duplicate");
    // Outside the repeated hour nothing changes.
    const early = new Date("2026-04-07T09:00:00Z");
    expect(claim("fast", early)).toBe("claimed");
    expect(claim("fast", early)).toBe("duplicate");
  });

  it("replay tolerates a torn last line and refuses ids that could escape the runs dir", () => {
    const state = join(dirs.make(), "state");
    const ledger = RunLedger.open(state, { logger: quiet() });
    const runId = newScheduledRunId("nightly", slotAt(0));
    ledger.schedule(plan(runId, slotAt(0)));
    writeFileSync(ledger.runFilePath(runId)!, '{"ts":"x","event":"fini', { flag: "a" });
    expect(RunLedger.open(state, { logger: quiet() }).replay(runId)?.events).toHaveLength(1);
    expect(ledger.replay("../../etc/passwd")).toBeUndefined();
    expect(ledger.runFilePath("nightly-20260407T1200-abcde/../x")).toBeUndefined();
  });

  it("lists newest first, per schedule, with a limit, and counts streaks", () => {
    const state = join(dirs.make(), "state");
    const ledger = RunLedger.open(state, { logger: quiet() });
    const ids: string[] = [];
    for (let m = 0; m < 5; m++) {
      const runId = newScheduledRunId("nightly", slotAt(m));
      ids.push(runId);
      if (m < 2) {
        ledger.schedule(plan(runId, slotAt(m)));
        ledger.finished(runId, {
          status: "completed",
          basis: "journal",
          durationMs: 1,
          journalPath: "/j",
        });
      } else {
        ledger.skip({
          runId,
          schedule: "nightly",
          slot: slotAt(m),
          trigger: "cron",
          cause: "blocked_by_after",
        });
      }
      ledger.schedule(plan(newScheduledRunId("other", slotAt(m)), slotAt(m), "other"));
    }
    for (const view of [ledger, RunLedger.open(state, { logger: quiet() })]) {
      expect(view.listRuns({ schedule: "nightly" }).map((r) => r.runId)).toEqual(
        [...ids].reverse(),
      );
      expect(view.listRuns({ limit: 3 }).map((r) => r.schedule)).toEqual([
        "other",
        "nightly",
        "other",
      ]);
      expect(view.latestRun("nightly")).toMatchObject({
        status: "skipped",
        skipCause: "blocked_by_after",
      });
      expect(view.consecutive("nightly", (r) => r.status === "skipped")).toBe(3);
      expect(view.consecutive("nightly", (r) => r.status === "completed")).toBe(0);
      expect(view.hasSlot(slotKey("nightly", slotAt(4)))).toBe(true);
    }
  });

  it("a ledger write failure is logged and never fails the run (runs dir is a file)", async () => {
    const dir = dirs.make();
    const state = join(dir, "state");
    const { logger, errors } = recordingLogger();
    const ledger = RunLedger.open(state, { logger });
    mkdirSync(state);
    writeFileSync(join(state, "runs"), "not a directory");
    const launch = await launchRecorded(ledger, presetSpec(dir, "complete"), "cron");
    if (launch.kind !== "launched") throw new Error("expected a launch");
    expect((await launch.handle.done).status).toBe("completed");
    expect(errors.length).toBeGreaterThan(0);
    expect(ledger.latestRun("nightly")).toMatchObject({ status: "completed" });
  });

  it("an injected failing fs never fails the run either", async () => {
    const dir = dirs.make();
    const { logger, errors } = recordingLogger();
    const fail = () => {
      throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
    };
    const ledger = RunLedger.open(join(dir, "state"), {
      logger,
      appendLine: fail,
      writeAtomic: fail,
    });
    const spec = presetSpec(dir, "fail");
    const launch = await launchRecorded(ledger, spec, "manual");
    if (launch.kind !== "launched") throw new Error("expected a launch");
    expect((await launch.handle.done).status).toBe("failed");
    // The held lines' spell once, then each of the three pending.json writes.
    expect(errors.length).toBe(4);
    // slot, index, scheduled, started, finished: held in order, for when the disk takes them.
    expect(ledger.writeTrouble()).toMatchObject({
      waiting: 5,
      error: "ENOSPC: no space left on device",
    });
    expect(existsSync(join(dir, "state", "pending.json"))).toBe(false);
    expect(ledger.latestRun("nightly")).toMatchObject({
      status: "failed",
      stopReason: "backend_failed",
    });
  });
});
