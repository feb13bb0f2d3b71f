// The run page's model: a run's journal records and tasks file folded into its iterations,
// agent text capped, tasks as they stood after each iteration.
import { describe, expect, it } from "vitest";
import type { TaskEntry, TasksFileEntry } from "../../src/harness/tasks/entry.js";
import type { FieldValue, JournalRecord } from "../../src/journal/codec.js";
import { clipText, utf8Prefix } from "../../src/operator/clipped-text.js";
import { ITERATION_LIMITS, runIterations } from "../../src/operator/run-iterations.js";
import { tasksByIteration } from "../../src/operator/tasks-by-iteration.js";
import { iterationsSection } from "../../src/web/iterations-view.js";

const RUN = "r1";
let clock = Date.parse("2026-11-29T10:00:00.000Z");
const at = (ms = 300) => {
  clock += ms;
  return new Date(clock).toISOString();
};

const sys = (
  topic: string,
  iteration: number | undefined,
  fields: Record<string, FieldValue> = {},
  run = RUN,
): JournalRecord => ({
  shape: "system",
  run,
  ...(iteration !== undefined && { iteration: String(iteration) }),
  topic,
  ts: at(),
  v: 1,
  fields,
});
const emit = (
  topic: string,
  iteration: number,
  payload: string,
  source = "agent",
): JournalRecord => ({
  shape: "agent",
  run: RUN,
  iteration: String(iteration),
  topic,
  ts: at(),
  v: 1,
  payload,
  source,
});
const iteration = (n: number, role: string, output: string, extra: JournalRecord[] = []) => [
  sys("iteration.start", n, { suggested_roles: role, recent_event: "x", prompt: "P".repeat(5000) }),
  ...extra,
  sys("iteration.finish", n, { exit_code: "0", timed_out: false, elapsed_s: "1.5", output }),
];
const task = (
  id: string,
  status: "open" | "done",
  created: string,
  completed?: string,
): TaskEntry => ({
  type: "task",
  id,
  text: `do ${id}`,
  status,
  source: "manual",
  created,
  ...(completed && { completed }),
  priority: "normal",
  soft: false,
});

describe("a run as iterations", () => {
  it("gives each iteration its role, events, gate refusals, usage, question and outcome", () => {
    const records = [
      sys("loop.start", undefined, { objective: "o" }),
      ...iteration(1, "builder", "built it", [
        emit("build.done", 1, "done one"),
        sys("backend.usage", 1, { model: "m1", total_tokens: 1200, cost_usd: 0.01 }),
      ]),
      ...iteration(2, "reviewer", "refused", [
        sys("task.gate", 2, { blocked_topic: "task.complete", open_tasks: "task-1,task-2" }),
        emit("review.rejected", 2, "not yet"),
        emit("human.ask", 2, "Ship it?"),
        sys("backend.usage", 2, { model: "m1", total_tokens: 100 }),
      ]),
      sys("ask.pending", 2, { question_id: "ask_r1_2", question: "Ship it?" }),
      sys("ask.answered", undefined, {
        question_id: "ask_r1_2",
        answer: "yes",
        answered_by: "cli:me",
      }),
      emit("operator.guidance", 2, 'Human response to "Ship it?": yes', "operator"),
      ...iteration(3, "reviewer", "done", [emit("task.complete", 3, "all done")]),
      sys("loop.complete", 3, { reason: "completion_event" }),
    ];
    const { steps, omitted } = runIterations(RUN, records);
    expect(omitted).toBe(0);
    expect(steps.map((s) => [s.iteration, s.roles, s.outcome.kind])).toEqual([
      [1, "builder", "next"],
      [2, "reviewer", "next"],
      [3, "reviewer", "completed"],
    ]);
    expect(steps[0]!.usage).toEqual({ tokens: 1200, costUsd: 0.01, models: ["m1"] });
    // A call without a cost makes the iteration's cost unknown.
    expect(steps[1]!.usage).toEqual({ tokens: 100, models: ["m1"] });
    expect(steps[1]!.refused).toEqual([
      { blocked: "task.complete", openTasks: ["task-1", "task-2"] },
    ]);
    // The guidance an answer becomes is not an event the agent emitted.
    expect(steps[1]!.events.map((e) => e.topic)).toEqual(["review.rejected", "human.ask"]);
    expect(steps[1]!.questions).toEqual([
      expect.objectContaining({
        question: "Ship it?",
        state: expect.objectContaining({ kind: "answered", answer: "yes", by: "cli:me" }),
      }),
    ]);
    expect(steps[2]!.outcome).toEqual({ kind: "completed", reason: "completion_event" });
    expect(steps[0]!.elapsedS).toBe(1.5);
    expect(steps[0]!.answer).toEqual({ head: "built it", rest: "", omittedBytes: 0 });
  });

  it("says how the run stopped, and that a question was never answered", () => {
    const records = [
      ...iteration(1, "asker", "asking", [emit("human.ask", 1, "Which quarter?")]),
      sys("ask.pending", 1, { question_id: "q1", question: "Which quarter?" }),
      sys("loop.stop", undefined, { reason: "max_runtime" }),
      ...iteration(1, "other", "a chain step", []).map((r) => ({ ...r, run: `${RUN}-step-1` })),
    ];
    const { steps } = runIterations(RUN, records);
    expect(steps[0]!.outcome).toEqual({ kind: "stopped", reason: "max_runtime", class: "stopped" });
    expect(steps[0]!.questions[0]!.state).toEqual({ kind: "unanswered" });
    expect(steps[1]).toMatchObject({
      run: `${RUN}-step-1`,
      iteration: 1,
      outcome: { kind: "last" },
    });
    const running = runIterations(RUN, records.slice(0, 4));
    expect(running.steps[0]!.questions[0]!.state).toEqual({ kind: "waiting" });
  });

  it("caps what a run wrote: answers, events, payloads and iterations", () => {
    const huge = Array.from({ length: 5000 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n");
    const records: JournalRecord[] = [];
    for (let n = 1; n <= ITERATION_LIMITS.iterations + 5; n++) {
      const events = Array.from({ length: 30 }, () => emit("note", n, "y".repeat(10_000)));
      records.push(...iteration(n, "r", huge, events));
    }
    const { steps, omitted } = runIterations(RUN, records);
    expect(omitted).toBe(5);
    expect(steps).toHaveLength(ITERATION_LIMITS.iterations);
    expect(steps[0]!.iteration).toBe(6);
    const s = steps[0]!;
    expect(s.answer.head.split("\n")).toHaveLength(ITERATION_LIMITS.answer.lines + 1);
    expect(s.answer.head.startsWith("line 0 ")).toBe(true);
    expect(Buffer.byteLength(s.answer.head + s.answer.rest)).toBe(ITERATION_LIMITS.answer.bytes);
    expect(s.answer.omittedBytes).toBe(Buffer.byteLength(huge) - ITERATION_LIMITS.answer.bytes);
    expect(s.events).toHaveLength(ITERATION_LIMITS.eventsPerIteration);
    expect(s.omittedEvents).toBe(10);
    expect(s.events[0]!.payload).toHaveLength(ITERATION_LIMITS.payloadBytes);
  });

  it("redacts before it cuts, so a secret across a cut is still hidden", () => {
    const secret = "sk-live-0123456789";
    const output = `${"a".repeat(ITERATION_LIMITS.answer.bytes - 8)}${secret}`;
    const { steps } = runIterations(RUN, iteration(1, "r", output), {
      redact: (t) => t.replaceAll(secret, "[REDACTED]"),
    });
    const shown = steps[0]!.answer.head + steps[0]!.answer.rest;
    expect(shown).not.toContain("sk-live");
    expect(shown.endsWith("[REDACTE")).toBe(true);
  });

  it("puts the tasks after each of the run's own iterations", () => {
    clock = Date.parse("2026-11-29T11:00:00.000Z");
    const records = [
      ...iteration(1, "a", "", []),
      ...[0, 1].map(() => sys("noop", 1)),
      ...iteration(2, "b", "", []),
      ...[0, 1, 2, 3].map(() => sys("noop", 2)),
      ...iteration(3, "c", "", []),
    ];
    // Iteration 1 ends at 11:00:00.6, 2 at 11:00:01.8, 3 at 11:00:03.6.
    const entries: TasksFileEntry[] = [
      task("task-1", "open", "2026-11-29T11:00:00Z"),
      task("task-2", "open", "2026-11-29T11:00:00Z"),
      task("task-1", "done", "2026-11-29T11:00:00Z", "2026-11-29T11:00:01Z"),
      {
        type: "task-tombstone",
        id: "task-4",
        targetId: "task-2",
        reason: "dup",
        created: "2026-11-29T11:00:03Z",
      },
    ];
    const { steps } = runIterations(RUN, records, { taskEntries: entries });
    const shown = steps.map((s) =>
      s.tasks?.tasks.map((t) => `${t.id}:${t.status}:${t.change ?? ""}`),
    );
    expect(shown).toEqual([
      ["task-1:open:added", "task-2:open:added"],
      ["task-2:open:", "task-1:done:done"],
      ["task-1:done:", "task-2:open:removed"],
    ]);
    expect(steps[2]!.tasks).toMatchObject({ open: 0, done: 1, omitted: 0 });
  });
});

describe("clipping agent text", () => {
  it("keeps the first lines in view, the rest folded, and cuts at the byte cap", () => {
    const limits = { lines: 2, headChars: 100, bytes: 20 };
    expect(clipText("a\nb\nc\nd", limits)).toEqual({
      head: "a\nb\n",
      rest: "c\nd",
      omittedBytes: 0,
    });
    expect(clipText("x".repeat(30), limits)).toEqual({
      head: "x".repeat(20),
      rest: "",
      omittedBytes: 10,
    });
    expect(clipText("y".repeat(30), { ...limits, headChars: 5 }).head).toBe("yyyyy");
  });

  it("never ends in half a character", () => {
    expect(utf8Prefix("ééé", 3)).toBe("é");
    expect(utf8Prefix("a😀", 3)).toBe("a");
    expect(utf8Prefix("\ufffd\ufffd", 3)).toBe("\ufffd");
    const head = clipText("a😀b", { lines: 1, headChars: 2, bytes: 100 });
    expect(head).toEqual({ head: "a", rest: "😀b", omittedBytes: 0 });
  });
});

describe("tasks by iteration", () => {
  it("marks reopened and edited tasks, and gives a running iteration the file as it is", () => {
    const t1 = task("task-1", "open", "2026-11-29T12:00:00Z");
    const t2 = task("task-2", "open", "2026-11-29T12:00:03Z");
    const entries: TasksFileEntry[] = [
      t1,
      { ...t1, status: "done", completed: "2026-11-29T12:00:01Z" },
      t2,
      // A reopened or edited line keeps its first `created`: it counts from the line above.
      t1,
      task("task-3", "open", "2026-11-29T12:00:05Z"),
      { ...t2, priority: "high" },
    ];
    const ends = [
      "2026-11-29T12:00:00.500Z",
      "2026-11-29T12:00:01.500Z",
      "2026-11-29T12:00:03.500Z",
      undefined,
    ];
    const snaps = tasksByIteration(entries, ends);
    expect(snaps.map((s) => s.tasks.map((t) => `${t.id}:${t.status}:${t.change ?? ""}`))).toEqual([
      ["task-1:open:added"],
      ["task-1:done:done"],
      ["task-1:open:reopened", "task-2:open:added"],
      ["task-2:open:edited", "task-1:open:", "task-3:open:added"],
    ]);
    expect(tasksByIteration(entries, [undefined], 1)[0]).toMatchObject({ open: 3, omitted: 2 });
  });
});

describe("iterations on the page", () => {
  it("escapes everything the run wrote, and links what it cut to the raw journal", () => {
    const evil = `<img src=x onerror=alert(1)>"'&`;
    const records = [
      ...iteration(1, `<b>${evil}</b>`, `${evil}\n`.repeat(5_000), [
        emit(`topic${evil}`, 1, evil),
        sys("task.gate", 1, { blocked_topic: evil, open_tasks: `${evil},task-2` }),
        sys("ask.pending", 1, { question_id: "q", question: evil }),
        sys("backend.usage", 1, { model: evil, total_tokens: 5 }),
      ]),
      sys("ask.answered", undefined, { question_id: "q", answer: evil, answered_by: evil }),
    ];
    const entries = [{ ...task("task-1", "open", "2026-11-29T00:00:00Z"), text: evil }];
    const view = runIterations(RUN, records, { taskEntries: entries });
    const page = iterationsSection(view, RUN, "/runs/r1?raw=1", Date.now()).text;
    expect(page).not.toContain("<img");
    expect(page).not.toContain("<b>");
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;");
    expect(page).toContain('<a href="/runs/r1?raw=1">raw journal</a>');
    expect(page.length).toBeLessThan(40_000);
  });
});
