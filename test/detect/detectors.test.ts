import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TaskStore } from "../../src/harness/tasks/store.js";
import type { JournalRecord } from "../../src/journal/codec.js";
import type { Condition } from "../../src/monitor/detect/conditions.js";
import {
  type DetectDeps,
  type DetectFacts,
  detect,
  type OpenTask,
  type RunFacts,
  readRunTasks,
  type SlotOutcome,
} from "../../src/monitor/detect/detectors.js";
import { RunTracker } from "../../src/monitor/detect/run-tracker.js";
import { resolveThresholds, thresholdsBySchedule } from "../../src/monitor/detect/thresholds.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const T0 = Date.parse("2026-04-07T12:00:00.000Z");
const at = (min: number) => new Date(T0 + min * 60_000).toISOString();
const now = (min: number) => new Date(T0 + min * 60_000);

function sys(topic: string, min: number, fields: Record<string, string> = {}): JournalRecord {
  const iteration = topic === "loop.start" ? {} : { iteration: "1" };
  return { shape: "system", run: "r1", ...iteration, topic, ts: at(min), v: 1, fields };
}
const agent = (min: number): JournalRecord => ({
  shape: "agent",
  run: "r1",
  iteration: "1",
  topic: "work.done",
  ts: at(min),
  v: 1,
  payload: "",
  source: "agent",
});
const start = (min = 0, workDir = "/w") => sys("loop.start", min, { work_dir: workDir });
const refusal = (min: number, open = "task-1,task-2") =>
  sys("task.gate", min, { blocked_topic: "task.complete", open_tasks: open });
const stop = (min: number, reason: string) => sys("loop.stop", min, { reason });

const TASKS: OpenTask[] = [
  { id: "task-1", text: "write the report" },
  { id: "task-2", text: "fix the flaky test" },
];
const deps = (tasks: OpenTask[] | undefined): DetectDeps => ({ tasksOf: () => tasks });
const thresholds = thresholdsBySchedule({}, [{ name: "strict", monitor: { gateRejections: 1 } }]);

function run(records: JournalRecord[]) {
  const tracker = new RunTracker();
  tracker.apply("/w/.autoloop/journal.jsonl", { records });
  return tracker.list();
}

function conditions(
  records: JournalRecord[],
  min: number,
  facts: RunFacts = { alive: true },
  tasks: OpenTask[] = TASKS,
): Condition[] {
  const f: DetectFacts = { runs: new Map([["r1", facts]]) };
  return detect(run(records), f, now(min), thresholds, deps(tasks));
}
const kinds = (cs: Condition[]) => cs.map((c) => `${c.kind}/${c.severity}`);

describe("gate_stuck", () => {
  it("fires after gate_rejections refusals in a row, with open task ids and texts", () => {
    const records = [start(), refusal(1), refusal(2)];
    expect(conditions(records, 3)).toEqual([]);
    const [c] = conditions([...records, refusal(3)], 4);
    expect(c).toMatchObject({
      kind: "gate_stuck",
      fingerprint: "gate_stuck:r1:task.complete",
      severity: "critical",
      run: "r1",
      occurredAt: at(1),
      gate: {
        topic: "task.complete",
        refusals: 3,
        since: at(1),
        trigger: "count",
        openTasks: [
          { id: "task-1", text: "write the report" },
          { id: "task-2", text: "fix the flaky test" },
        ],
      },
    });
  });

  it("fires when a refusal is older than gate_grace although the agent keeps chattering", () => {
    const records = [start(), refusal(1), agent(2), refusal(10), agent(11), agent(29)];
    expect(conditions(records, 30)).toEqual([]);
    const [c] = conditions(records, 31);
    expect(c).toMatchObject({
      kind: "gate_stuck",
      gate: { trigger: "grace", since: at(1), refusals: 2 },
    });
  });

  it("progress resets the streak: an agent event, or a task completed per the tasks file", () => {
    expect(conditions([start(), refusal(1), refusal(2), agent(3), refusal(4)], 5)).toEqual([]);
    const stuck = [start(), refusal(1), refusal(2), refusal(3)];
    expect(conditions(stuck, 4, { alive: true }, [TASKS[1]!])).toEqual([]);
  });

  it("keeps the fingerprint as the streak grows and uses per-schedule thresholds", () => {
    const a = conditions([start(), refusal(1), refusal(2), refusal(3)], 4);
    const b = conditions([start(), refusal(1), refusal(2), refusal(3), refusal(9)], 10);
    expect(a[0]!.fingerprint).toBe(b[0]!.fingerprint);
    const strict = conditions([start(), refusal(1)], 2, { alive: true, schedule: "strict" });
    expect(strict).toMatchObject([{ kind: "gate_stuck", schedule: "strict" }]);
  });

  it("leaves texts empty when the tasks file cannot be read", () => {
    const records = [refusal(1), refusal(2), refusal(3)];
    const cs = detect(run(records), { runs: new Map() }, now(4), thresholds, deps(undefined));
    expect(cs).toMatchObject([
      {
        gate: {
          openTasks: [
            { id: "task-1", text: "" },
            { id: "task-2", text: "" },
          ],
        },
      },
    ]);
  });
});

describe("run outcomes", () => {
  it("failed-class reasons are critical run_failed; completion and interruption are quiet", () => {
    expect(conditions([start(), stop(5, "auth_failed")], 6, { alive: false })).toMatchObject([
      {
        kind: "run_failed",
        severity: "critical",
        reason: "auth_failed",
        outcome: "failed",
        fingerprint: "run_failed:r1",
      },
    ]);
    expect(conditions([start(), stop(5, "something_new")], 6)).toMatchObject([
      { outcome: "failed" },
    ]);
    const complete = sys("loop.complete", 5, { reason: "completion_event" });
    expect(
      conditions([start(), refusal(1), refusal(2), refusal(3), complete], 40, { alive: false }),
    ).toEqual([]);
    expect(conditions([start(), stop(5, "interrupted")], 40, { alive: false })).toEqual([]);
  });

  it("stopped-class reasons are warnings, critical when the gate was still refusing", () => {
    expect(kinds(conditions([start(), stop(5, "max_iterations")], 6))).toEqual([
      "run_failed/warning",
    ]);
    expect(kinds(conditions([start(), stop(5, "rate_limited")], 6))).toEqual([
      "run_failed/warning",
    ]);
    const gated = conditions([start(), refusal(1), stop(5, "max_iterations")], 6);
    expect(gated).toMatchObject([{ outcome: "stopped", severity: "critical", gateRefusals: 1 }]);
  });

  it("scheduler verdicts: a timeout kill is run_timed_out, an operator kill is quiet", () => {
    const records = [start(), refusal(1), refusal(2), refusal(3), stop(9, "interrupted")];
    expect(
      kinds(conditions(records, 10, { alive: false, verdict: { kind: "timed_out" } })),
    ).toEqual(["run_timed_out/critical"]);
    expect(
      conditions(records.slice(0, 4), 90, {
        alive: false,
        verdict: { kind: "killed", by: "operator" },
      }),
    ).toEqual([]);
  });

  it("a crash is a dead harness with no terminal record, once the last record settled", () => {
    const records = [start(), refusal(1), refusal(2), refusal(3)];
    expect(conditions(records, 3.1, { alive: false })).toEqual([]);
    expect(conditions(records, 4, { alive: false })).toMatchObject([
      { kind: "run_crashed", fingerprint: "run_crashed:r1", lastRecordAt: at(3) },
    ]);
    expect(kinds(conditions(records, 40, {}))).toEqual(["gate_stuck/critical"]);
  });
});

describe("run_stalled", () => {
  it("holds only while the harness lives and no terminal record came", () => {
    const records = [start(), agent(1)];
    expect(conditions(records, 20)).toEqual([]);
    expect(conditions(records, 21)).toMatchObject([
      { kind: "run_stalled", severity: "warning", lastRecordAt: at(1), occurredAt: at(1) },
    ]);
    expect(conditions(records, 21, {})).toEqual([]);
    expect(kinds(conditions(records, 21, { alive: false }))).toEqual(["run_crashed/critical"]);
    expect(conditions([...records, stop(2, "max_iterations")], 60)).toMatchObject([
      { kind: "run_failed" },
    ]);
  });

  it("stall and stuck gate can hold together; a failure suppresses both", () => {
    const records = [start(), refusal(1), refusal(2), refusal(3)];
    expect(kinds(conditions(records, 40))).toEqual(["gate_stuck/critical", "run_stalled/warning"]);
    expect(kinds(conditions([...records, stop(4, "backend_failed")], 40))).toEqual([
      "run_failed/critical",
    ]);
  });
});

describe("question_pending", () => {
  const ask = (min: number) =>
    sys("ask.pending", min, {
      question_id: "ask_r1_1",
      question: "May I ship?\nThe tests pass.",
      timeout_at: at(min + 30),
    });
  it("holds while the run waits for an answer, instead of a stall", () => {
    const [c, ...rest] = conditions([start(), ask(1)], 45);
    expect(rest).toEqual([]);
    expect(c).toMatchObject({
      kind: "question_pending",
      severity: "critical",
      fingerprint: "question_pending:r1:ask_r1_1",
      summary: "run r1 waits for a human's answer: May I ship?",
      questionId: "ask_r1_1",
      question: "May I ship?\nThe tests pass.",
      askedAt: at(1),
      timeoutAt: at(31),
    });
  });

  it("ends with the answer or the timeout, and a dead harness is a crash", () => {
    const answered = sys("ask.answered", 2, {
      question_id: "ask_r1_1",
      answer: "yes",
      answered_by: "mcp",
    });
    expect(conditions([start(), ask(1), answered], 3)).toEqual([]);
    const [state] = run([start(), ask(1), answered]);
    expect(state?.answer).toMatchObject({
      id: "ask_r1_1",
      how: "answered",
      by: "mcp",
      text: "yes",
    });
    expect(
      conditions([start(), ask(1), sys("ask.timeout", 31, { question_id: "ask_r1_1" })], 32),
    ).toEqual([]);
    expect(kinds(conditions([start(), ask(1)], 5, { alive: false }))).toEqual([
      "run_crashed/critical",
    ]);
  });
});

describe("schedule_trouble and config_invalid", () => {
  const slots = (...outcomes: SlotOutcome[]) =>
    outcomes.map((outcome, i) => ({ slot: at(i * 60), outcome }));

  it("fires on N skipped or blocked slots in a row, missed slots and bad files", () => {
    const facts: DetectFacts = {
      runs: new Map(),
      schedules: {
        recentSlots: [
          { schedule: "nightly", slots: slots("ran", "skipped", "blocked", "skipped") },
          { schedule: "hourly", slots: slots("skipped", "skipped", "ran", "skipped") },
          { schedule: "never", slots: [] },
        ],
        missed: [
          { schedule: "hourly", slots: [at(0), at(60)] },
          { schedule: "weekly", slots: [] },
        ],
        invalidFiles: [
          { file: "/etc/schedules/bad.toml", problems: ["bad.toml: cron: found x"], since: at(5) },
        ],
      },
    };
    const cs = detect([], facts, now(600), thresholds, deps(TASKS));
    expect(cs.map((c) => c.fingerprint)).toEqual([
      "schedule_trouble:nightly:skipped",
      "schedule_trouble:hourly:missed",
      "config_invalid:/etc/schedules/bad.toml",
    ]);
    expect(cs[0]).toMatchObject({
      count: 3,
      schedule: "nightly",
      slots: [at(60), at(120), at(180)],
      occurredAt: at(60),
    });
    expect(cs[1]).toMatchObject({ count: 2, occurredAt: at(0) });
    expect(cs[2]).toMatchObject({ occurredAt: at(5), problems: ["bad.toml: cron: found x"] });
    // Nothing in a condition depends on `now`: the same facts later give the same conditions.
    expect(detect([], facts, now(900), thresholds, deps(TASKS))).toEqual(cs);
  });
});

describe("thresholds and tasks", () => {
  it("[schedule.monitor] overrides [monitor], which overrides the defaults", () => {
    const t = thresholdsBySchedule({ gateRejections: 5, stallAfterMs: 60_000 }, [
      { name: "a", monitor: { gateRejections: 2 } },
    ]);
    expect(t("a")).toMatchObject({
      gateRejections: 2,
      stallAfterMs: 60_000,
      gateGraceMs: 1_800_000,
    });
    expect(t("other")).toEqual(t(undefined));
    expect(resolveThresholds()).toMatchObject({ gateRejections: 3, stallAfterMs: 1_200_000 });
  });

  it("readRunTasks reads the run's blocking open tasks from its work dir", () => {
    const workDir = tempDir();
    const runDir = join(workDir, ".autoloop", "runs", "r1");
    mkdirSync(runDir, { recursive: true });
    const store = new TaskStore(join(runDir, "tasks.jsonl"));
    store.add("write the report");
    store.add("maybe later", { soft: true });
    store.add("done already");
    store.complete("task-3");
    const [state] = run([start(0, workDir)]);
    expect(readRunTasks(state!)).toEqual([{ id: "task-1", text: "write the report" }]);
    expect(readRunTasks({ ...state!, workDir: undefined })).toBeUndefined();
    // Read again once the file changed (unchanged, the last read stands).
    expect(readRunTasks(state!)).toEqual([{ id: "task-1", text: "write the report" }]);
    store.complete("task-1");
    expect(readRunTasks(state!)).toEqual([]);
    store.add("one more");
    expect(readRunTasks(state!)?.map((t) => t.text)).toEqual(["one more"]);
  });
});

describe("chains", () => {
  const rec = (run: string, topic: string, min: number, fields: Record<string, string> = {}) =>
    ({ shape: "system", run, topic, ts: at(min), v: 1, fields }) as JournalRecord;
  const chainRecords = (status: string) => [
    rec("c1", "chain.start", 0, { chain_run: "c1", name: "two", steps: "first,second" }),
    rec("c1-step-1", "loop.start", 0, { trigger: "chain", parent_run_id: "c1" }),
    rec("c1-step-1", "loop.complete", 1, { reason: "completion_event" }),
    rec("c1-step-2", "loop.start", 1, { trigger: "chain", parent_run_id: "c1" }),
    rec("c1-step-2", "loop.stop", 40, { reason: "backend_failed" }),
    rec("c1", "chain.complete", 40, {
      status,
      reason: `step_${status}`,
      failed_step: "2",
      failed_run_id: "c1-step-2",
    }),
  ];
  const detectAll = (records: JournalRecord[], min: number) =>
    detect(
      run(records),
      { runs: new Map([["c1", { alive: true }]]) },
      now(min),
      thresholds,
      deps([]),
    );

  it("reports a failed chain once, as the chain's run, naming the step", () => {
    const cs = detectAll(chainRecords("failed"), 41);
    expect(cs.map((c) => `${c.kind} ${c.run}`)).toEqual(["run_failed c1"]);
    expect(cs[0]).toMatchObject({
      reason: "step_failed",
      outcome: "failed",
      detail: "step 2 (run c1-step-2) ended the chain",
    });
    expect(detectAll(chainRecords("completed"), 41)).toEqual([]);
  });

  it("understands the public autoloop's chain records (outcome, no run or ts)", () => {
    const reference = [
      {
        shape: "system",
        run: "c7",
        topic: "chain.start",
        ts: "",
        v: 1,
        fields: { name: "x", steps: "a,b", step_count: "2" },
      },
      {
        shape: "system",
        run: "c7",
        topic: "chain.complete",
        ts: "",
        v: 1,
        fields: { name: "x", steps_completed: "1", outcome: "failed" },
      },
    ] as JournalRecord[];
    const cs = detect(run(reference), { runs: new Map() }, now(1), thresholds, deps([]));
    expect(cs.map((c) => `${c.kind} ${c.run}`)).toEqual(["run_failed c7"]);
  });

  it("does not call a chain stalled while its steps are busy", () => {
    // The chain's own last record is 35 minutes old, but its step wrote a minute ago.
    const records = chainRecords("failed").slice(0, 4);
    records.push(rec("c1-step-2", "iteration.finish", 34, {}));
    expect(detectAll(records, 35).filter((c) => c.kind === "run_stalled")).toEqual([]);
  });
});
