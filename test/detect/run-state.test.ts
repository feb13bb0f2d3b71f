import { describe, expect, it } from "vitest";
import { decodeRecord, encodeRecord, type JournalRecord } from "../../src/journal/codec.js";
import { MonitorFacts } from "../../src/monitor/detect/facts.js";
import { RunTracker } from "../../src/monitor/detect/run-tracker.js";

const T0 = Date.parse("2026-04-07T12:00:00.000Z");
const at = (min: number) => new Date(T0 + min * 60_000).toISOString();

function sys(
  run: string,
  topic: string,
  min: number,
  fields: Record<string, string> = {},
  iteration?: string,
): JournalRecord {
  const r: JournalRecord = { shape: "system", run, topic, ts: at(min), v: 1, fields };
  if (iteration !== undefined) r.iteration = iteration;
  return r;
}

function agent(run: string, topic: string, min: number, iteration = "1"): JournalRecord {
  return {
    shape: "agent",
    run,
    iteration,
    topic,
    ts: at(min),
    v: 1,
    payload: "x",
    source: "agent",
  };
}

const start = (run: string, min = 0) =>
  sys(run, "loop.start", min, {
    objective: "fix the tests",
    preset: "autocode",
    trigger: "cron",
    created_at: at(min),
    work_dir: "/srv/project",
  });
const refusal = (run: string, min: number, open: string, iteration = "2") =>
  sys(run, "task.gate", min, { blocked_topic: "task.complete", open_tasks: open }, iteration);

describe("RunTracker: state from the journal", () => {
  it("keeps launch metadata, iteration, last record time, invalid emits and the terminal record", () => {
    const tracker = new RunTracker();
    tracker.apply("/j/a.jsonl", {
      records: [
        start("r1"),
        sys("r1", "iteration.start", 1, {}, "1"),
        sys("r1", "event.invalid", 2, { emitted: "nope" }, "1"),
        sys("r1", "iteration.start", 3, {}, "2"),
        sys("r1", "loop.stop", 4, { reason: "backend_failed", output_tail: "boom" }, "2"),
      ],
    });
    const r = tracker.get("r1")!;
    expect(r).toMatchObject({
      run: "r1",
      journalPath: "/j/a.jsonl",
      started: true,
      workDir: "/srv/project",
      preset: "autocode",
      objective: "fix the tests",
      trigger: "cron",
      createdAt: at(0),
      iteration: "2",
      lastRecordAt: at(4),
      invalidEmits: 1,
      records: 5,
    });
    expect(r.terminal).toEqual({
      topic: "loop.stop",
      reason: "backend_failed",
      class: "failed",
      at: at(4),
      detail: "boom",
    });
  });

  it("separates interleaved runs of one journal and runs of several journals", () => {
    const tracker = new RunTracker();
    tracker.apply("/j/a.jsonl", { records: [start("r1"), start("r2", 1), agent("r1", "x", 2)] });
    tracker.apply("/j/b.jsonl", {
      records: [start("r3", 3), sys("r2", "loop.complete", 4, { reason: "completion_event" })],
    });
    expect(tracker.list().map((r) => [r.run, r.journalPath, r.records])).toEqual([
      ["r1", "/j/a.jsonl", 2],
      ["r2", "/j/a.jsonl", 2],
      ["r3", "/j/b.jsonl", 1],
    ]);
    expect(tracker.get("r2")!.terminal).toMatchObject({
      topic: "loop.complete",
      reason: "completion_event",
    });
  });

  it("counts refusals in a row and remembers the latest blocked topic, open ids and via", () => {
    const tracker = new RunTracker();
    const promise = sys(
      "r1",
      "task.gate",
      3,
      {
        blocked_topic: "task.complete",
        open_tasks: "task-1,task-2",
        via: "completion_promise",
      },
      "3",
    );
    tracker.apply("/j", {
      records: [
        start("r1"),
        refusal("r1", 1, "task-1,task-2"),
        refusal("r1", 2, "task-1, task-2"),
        promise,
      ],
    });
    expect(tracker.get("r1")!.gate).toEqual({
      blockedTopic: "task.complete",
      openTaskIds: ["task-1", "task-2"],
      via: "completion_promise",
      refusals: 3,
      streakSince: at(1),
      episodeRefusals: 3,
      episodeSince: at(1),
      lastAt: at(3),
    });
  });

  it("an accepted agent event ends the streak but not the grace episode", () => {
    const tracker = new RunTracker();
    tracker.apply("/j", {
      records: [start("r1"), refusal("r1", 1, "task-1"), refusal("r1", 2, "task-1")],
    });
    tracker.apply("/j", { records: [agent("r1", "review.done", 3)] });
    expect(tracker.get("r1")!.gate).toMatchObject({
      refusals: 0,
      episodeRefusals: 2,
      episodeSince: at(1),
    });
    expect(tracker.get("r1")!.gate!.streakSince).toBeUndefined();
    tracker.apply("/j", { records: [refusal("r1", 4, "task-1")] });
    expect(tracker.get("r1")!.gate).toMatchObject({
      refusals: 1,
      streakSince: at(4),
      episodeRefusals: 3,
    });
  });

  it("a task gone from the next refusal is progress: streak and episode restart there", () => {
    const tracker = new RunTracker();
    tracker.apply("/j", {
      records: [
        refusal("r1", 1, "task-1,task-2"),
        refusal("r1", 2, "task-1,task-2"),
        refusal("r1", 3, "task-2"),
      ],
    });
    expect(tracker.get("r1")!.gate).toMatchObject({
      refusals: 1,
      streakSince: at(3),
      episodeRefusals: 1,
      episodeSince: at(3),
      openTaskIds: ["task-2"],
    });
    expect(tracker.get("r1")!.started).toBe(false);
  });

  it("event.invalid and harness records are not progress", () => {
    const tracker = new RunTracker();
    const harness: JournalRecord = {
      ...agent("r1", "note", 2),
      source: "operator",
    } as JournalRecord;
    tracker.apply("/j", {
      records: [
        refusal("r1", 1, "task-1"),
        harness,
        sys("r1", "event.invalid", 3, {}, "2"),
        refusal("r1", 4, "task-1"),
      ],
    });
    expect(tracker.get("r1")!.gate!.refusals).toBe(2);
  });
});

describe("RunTracker: replayed batches (at-least-once delivery)", () => {
  const batch1 = {
    records: [start("r1"), refusal("r1", 1, "task-1")],
    startOffset: 0,
    endOffset: 400,
  };
  const batch2 = {
    records: [refusal("r1", 2, "task-1"), sys("r1", "event.invalid", 3, {}, "2")],
    startOffset: 400,
    endOffset: 700,
  };

  it("skips a batch at or below the applied offset", () => {
    const tracker = new RunTracker();
    expect(tracker.apply("/j", batch1)).toBe(2);
    expect(tracker.apply("/j", batch2)).toBe(2);
    expect(tracker.apply("/j", batch2)).toBe(0);
    expect(tracker.apply("/j", batch1)).toBe(0);
    expect(tracker.get("r1")).toMatchObject({ records: 4, invalidEmits: 1, gate: { refusals: 2 } });
  });

  it("filters an overlapping batch record by record", () => {
    const tracker = new RunTracker();
    tracker.apply("/j", batch1);
    const overlap = {
      records: [...batch1.records, ...batch2.records],
      startOffset: 0,
      endOffset: 700,
    };
    expect(tracker.apply("/j", overlap)).toBe(2);
    expect(tracker.get("r1")).toMatchObject({ records: 4, gate: { refusals: 2 } });
  });

  it("takes no date from a record stamped in the future (the run writes its journal)", () => {
    const tracker = new RunTracker();
    const forged = { ...refusal("r1", 3, "task-1"), ts: "9999-12-31T23:59:59.999Z" };
    tracker.apply("/j", { records: [start("r1"), forged], startOffset: 0, endOffset: 300 });
    // Its last record time stays the start's: a stalled or dead run is still seen as one.
    expect(tracker.get("r1")).toMatchObject({ records: 2, lastRecordAt: at(0) });
    // After a reset, the run's real records are not taken for replays of the forged one.
    tracker.resetJournal("/j");
    const reread = [start("r1"), forged, refusal("r1", 4, "task-1", "3")];
    expect(tracker.apply("/j", { records: reread, startOffset: 0, endOffset: 500 })).toBe(2);
    expect(tracker.get("r1")).toMatchObject({ lastRecordAt: at(4) });
  });

  it("dedupes batches without offsets and re-reads after a journal reset", () => {
    const tracker = new RunTracker();
    tracker.apply("/j", { records: batch1.records });
    tracker.apply("/j", { records: batch1.records });
    expect(tracker.get("r1")!.gate!.refusals).toBe(1);
    tracker.apply("/j", batch2);
    tracker.resetJournal("/j");
    // The follower reads the replaced file from byte 0: old records again, then a new one.
    const reread = {
      records: [...batch1.records, ...batch2.records, refusal("r1", 9, "task-1")],
      startOffset: 0,
      endOffset: 900,
    };
    expect(tracker.apply("/j", reread)).toBe(1);
    expect(tracker.get("r1")!.gate!.refusals).toBe(3);
  });

  it("a tracker restored from its JSON snapshot ignores the batch it had already applied", () => {
    const tracker = new RunTracker();
    tracker.apply("/j", batch1);
    tracker.apply("/j", batch2);
    const saved = JSON.parse(JSON.stringify(tracker.snapshot()));
    const restored = new RunTracker({}, saved);
    expect(restored.apply("/j", batch2)).toBe(0);
    expect(restored.apply("/j", { ...batch2, startOffset: 500 })).toBe(0);
    expect(restored.get("r1")).toMatchObject({ records: 4, gate: { refusals: 2 } });
  });

  it("writes its JSON snapshot as snapshot() says, with runs kept from the last one or changed since", () => {
    const tracker = new RunTracker();
    const same = () => expect(tracker.snapshotText()).toBe(JSON.stringify(tracker.snapshot()));
    tracker.apply("/j", batch1);
    tracker.apply("/k", { records: [start("r2", 0)], startOffset: 0, endOffset: 90 });
    same();
    tracker.apply("/j", batch2); // r1 changes, r2 is written as it was
    same();
    tracker.apply("/k", { records: [agent("r2", "x", 3)], startOffset: 90, endOffset: 200 });
    same();
    // A chain's step changes its chain's state too.
    tracker.apply("/c", {
      records: [
        sys("c1", "chain.start", 4, { chain_run: "c1", name: "ship", steps: "a" }),
        sys("c1-step-1", "loop.start", 4, { trigger: "chain", parent_run_id: "c1" }),
      ],
    });
    same();
    tracker.apply("/c", { records: [agent("c1-step-1", "x", 9)] });
    expect(JSON.parse(tracker.snapshotText()).runs[2].lastRecordAt).toBe(at(9));
    same();
    tracker.resetJournal("/k"); // its offset is forgotten, and so is its text
    same();
    tracker.apply("/k", { records: [agent("r2", "y", 10)], startOffset: 0, endOffset: 40 });
    same();
    tracker.prune(new Date(T0 + 8 * 86_400_000)); // every run silent for a week: forgotten
    same();
    expect(JSON.parse(tracker.snapshotText()).runs).toEqual([]);
  });

  it("reads records written in the journal byte style", () => {
    const line = encodeRecord(refusal("r1", 1, "task-1,task-2"));
    const tracker = new RunTracker();
    tracker.apply("/j", { records: [decodeRecord(line)!] });
    expect(tracker.get("r1")!.gate!.openTaskIds).toEqual(["task-1", "task-2"]);
  });
});

describe("RunTracker: memory cap", () => {
  it("forgets runs ended over 24 h ago and runs silent for a week", () => {
    const tracker = new RunTracker();
    tracker.apply("/j", {
      records: [
        start("done", 0),
        sys("done", "loop.complete", 10, { reason: "completion_event" }),
        start("quiet", 0),
        start("live", 0),
      ],
    });
    const day = 24 * 60;
    tracker.apply("/j", { records: [agent("live", "x", 7 * day)] });
    expect(tracker.prune(new Date(T0 + (day + 5) * 60_000))).toEqual([]);
    expect(tracker.prune(new Date(T0 + (day + 11) * 60_000))).toEqual(["done"]);
    expect(tracker.prune(new Date(T0 + (7 * day + 1) * 60_000))).toEqual(["quiet"]);
    expect(tracker.list().map((r) => r.run)).toEqual(["live"]);
  });
});

describe("RunTracker: changed runs", () => {
  it("counts the runs the next snapshot serializes afresh: changed, new or loaded", () => {
    const tracker = new RunTracker();
    tracker.apply("/j", { records: [start("a", 0), start("b", 0), agent("a", "x", 1)] });
    expect(tracker.changedRuns()).toBe(2);
    const text = tracker.snapshotText();
    expect(tracker.changedRuns()).toBe(0);
    tracker.apply("/j", { records: [agent("b", "y", 2), agent("b", "z", 3)] });
    expect(tracker.changedRuns()).toBe(1);
    tracker.apply("/j", { records: [start("c", 4)] });
    expect(tracker.changedRuns()).toBe(2);
    tracker.snapshotText();
    tracker.prune(new Date(T0 + 8 * 24 * 3_600_000));
    expect(tracker.changedRuns()).toBe(0);
    const loaded = new RunTracker({}, JSON.parse(text));
    expect(loaded.changedRuns()).toBe(2);
  });
});

describe("a chain's steps in the monitor's facts", () => {
  it("belong to their chain's schedule", () => {
    const tracker = new RunTracker();
    const rec = (run: string, topic: string, fields: Record<string, string>) =>
      ({
        shape: "system",
        run,
        topic,
        ts: "2026-04-07T12:00:00.000Z",
        v: 1,
        fields,
      }) as JournalRecord;
    tracker.apply("/j/a.jsonl", {
      records: [
        rec("c1", "chain.start", { chain_run: "c1", name: "ship", steps: "a" }),
        rec("c1-step-1", "loop.start", { trigger: "chain", parent_run_id: "c1" }),
      ],
    });
    const facts = new MonitorFacts({ ledger: () => undefined, isAlive: () => true } as never);
    facts.noteFire("nightly", "c1", "cron");
    const byRun = facts.collectRuns(tracker.list());
    expect(byRun.get("c1-step-1")?.schedule).toBe("nightly");
    expect(byRun.get("c1")?.schedule).toBe("nightly");
  });
});
