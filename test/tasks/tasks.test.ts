import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decodeTaskEntry, encodeTaskEntry } from "../../src/harness/tasks/entry.js";
import { blockingTasks, materialize } from "../../src/harness/tasks/materialize.js";
import { renderTasksBlock, tasksPressureLine } from "../../src/harness/tasks/render.js";
import { TaskStore, UnknownTaskError } from "../../src/harness/tasks/store.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

function clock(...isoTimes: string[]): () => Date {
  let i = 0;
  return () => new Date(isoTimes[Math.min(i++, isoTimes.length - 1)]!);
}

describe("tasks file byte style (docs/formats.md)", () => {
  it("writes open, done and tombstone entries exactly like the public autoloop", () => {
    const file = join(tempDir(), "tasks.jsonl");
    const store = new TaskStore(
      file,
      clock("2026-04-07T12:00:00.123Z", "2026-04-07T12:05:00Z", "2026-04-07T13:00:00Z"),
    );
    store.add("write the report");
    store.complete("task-1");
    store.remove("task-1", "no longer needed");
    expect(readFileSync(file, "utf8")).toBe(
      '{"id": "task-1", "type": "task", "text": "write the report", "status": "open", "source": "manual", "created": "2026-04-07T12:00:00Z"}\n' +
        '{"id": "task-1", "type": "task", "text": "write the report", "status": "done", "source": "manual", "created": "2026-04-07T12:00:00Z", "completed": "2026-04-07T12:05:00Z"}\n' +
        '{"id": "task-3", "type": "task-tombstone", "target_id": "task-1", "reason": "no longer needed", "created": "2026-04-07T13:00:00Z"}\n',
    );
  });

  it("puts priority and soft (as a string) after created/completed", () => {
    const line = encodeTaskEntry({
      type: "task",
      id: "task-2",
      text: 'say "hi"',
      status: "open",
      source: "manual",
      created: "2026-04-07T12:00:00Z",
      priority: "high",
      soft: true,
    });
    expect(line).toBe(
      '{"id": "task-2", "type": "task", "text": "say \\u0022hi\\u0022", "status": "open", "source": "manual", "created": "2026-04-07T12:00:00Z", "priority": "high", "soft": "true"}',
    );
    expect(decodeTaskEntry(line)).toMatchObject({
      id: "task-2",
      text: 'say "hi"',
      priority: "high",
      soft: true,
    });
  });
});

describe("materialization", () => {
  it("orders open tasks by priority then age, done tasks by completion, and drops tombstoned ids", () => {
    const file = join(tempDir(), "tasks.jsonl");
    const times = [
      "2026-01-01T00:00:01Z",
      "2026-01-01T00:00:02Z",
      "2026-01-01T00:00:03Z",
      "2026-01-01T00:00:04Z",
      "2026-01-01T00:00:05Z",
      "2026-01-01T00:00:06Z",
      "2026-01-01T00:00:07Z",
      "2026-01-01T00:00:08Z",
    ];
    const store = new TaskStore(file, clock(...times));
    store.add("normal old");
    store.add("low", { priority: "low" });
    store.add("high", { priority: "high" });
    store.add("normal new", { soft: true });
    store.add("to remove");
    store.complete("task-1");
    store.complete("task-2");
    store.remove("task-5");
    const view = store.view();
    expect(view.open.map((t) => t.text)).toEqual(["high", "normal new"]);
    expect(view.done.map((t) => t.id)).toEqual(["task-2", "task-1"]);
    expect(blockingTasks(view).map((t) => t.id)).toEqual(["task-3"]);
  });

  it("keeps the newest entry per id (update keeps status and timestamps)", () => {
    const store = new TaskStore(
      join(tempDir(), "t.jsonl"),
      clock("2026-01-01T00:00:01Z", "2026-01-01T00:00:02Z"),
    );
    store.add("first text", { priority: "high" });
    const updated = store.update("task-1", "second text");
    expect(updated).toMatchObject({
      id: "task-1",
      text: "second text",
      status: "open",
      created: "2026-01-01T00:00:01Z",
      priority: "high",
    });
    expect(store.view().open.map((t) => t.text)).toEqual(["second text"]);
  });

  it("reports completing a done task as a no-op and rejects unknown ids", () => {
    const store = new TaskStore(join(tempDir(), "t.jsonl"));
    store.add("x");
    expect(store.complete("task-1").kind).toBe("completed");
    const lines = readFileSync(store.path, "utf8");
    expect(store.complete("task-1").kind).toBe("already_done");
    expect(readFileSync(store.path, "utf8")).toBe(lines);
    expect(() => store.complete("task-9")).toThrow(UnknownTaskError);
    store.remove("task-1");
    expect(() => store.update("task-1", "y")).toThrow(UnknownTaskError);
  });

  it("skips garbage and torn lines", () => {
    const file = join(tempDir(), "t.jsonl");
    writeFileSync(
      file,
      '{"id": "task-1", "type": "task", "text": "a", "status": "open", "source": "manual", "created": "2026-01-01T00:00:00Z"}\nnot json\n{"id": "task-2", "ty',
    );
    const store = new TaskStore(file);
    expect(store.view().open.map((t) => t.id)).toEqual(["task-1"]);
    // The torn line never became an entry, so its id is free; the new line starts on its own line.
    expect(store.add("b").id).toBe("task-2");
    expect(store.view().open.map((t) => t.id)).toEqual(["task-1", "task-2"]);
    expect(readFileSync(file, "utf8").split("\n").at(-2)).toMatch(
      /^\{"id": "task-2", "type": "task", "text": "b"/,
    );
  });
});

describe("prompt block", () => {
  const view = materialize([
    {
      type: "task",
      id: "task-1",
      text: "implement retry logic",
      status: "open",
      source: "manual",
      created: "2026-01-01T00:00:00Z",
      priority: "high",
      soft: false,
    },
    {
      type: "task",
      id: "task-2",
      text: "set up test fixtures",
      status: "done",
      source: "manual",
      created: "2026-01-01T00:00:00Z",
      completed: "2026-01-01T00:01:00Z",
      priority: "normal",
      soft: false,
    },
  ]);

  it("renders open and done tasks and the context-pressure line", () => {
    expect(renderTasksBlock(view)).toBe(
      "Tasks:\nOpen:\n- [ ] [task-1] [high] implement retry logic\nDone:\n- [x] [task-2] set up test fixtures (done)",
    );
    expect(tasksPressureLine(view)).toBe("Tasks: 1 open, 1 done (2 total)");
    expect(renderTasksBlock(materialize([]))).toBe("");
  });

  it("truncates from the bottom to the budget and says how many entries were dropped", () => {
    expect(renderTasksBlock(view, 60)).toBe(
      "Tasks:\nOpen:\n- [ ] [task-1] [high] implement retry logic\n(tasks truncated: 1 entries dropped)",
    );
    expect(renderTasksBlock(view, 0)).toContain("(done)");
  });
});

describe("autoloop task CLI", () => {
  it("adds, lists, completes and removes through AUTOLOOP_PROJECT_DIR", async () => {
    const dir = tempDir();
    const env = { AUTOLOOP_PROJECT_DIR: dir };
    const add = await autoloop(["task", "add", "--priority", "high", "write", "the", "report"], {
      cwd: "/",
      env,
    });
    expect(add.exitCode).toBe(0);
    expect(add.stdout).toBe("task-1");
    await autoloop(["task", "add", "--soft", "nice to have"], { cwd: "/", env });
    const list = await autoloop(["task", "list"], { cwd: "/", env });
    expect(list.stdout).toBe(
      "Open:\n- [ ] [task-1] [high] write the report\n- [ ] [task-2] [soft] nice to have",
    );
    expect((await autoloop(["task", "complete", "task-1"], { cwd: "/", env })).stdout).toBe(
      "completed task-1",
    );
    expect((await autoloop(["task", "complete", "task-1"], { cwd: "/", env })).stdout).toContain(
      "already done",
    );
    const json = JSON.parse((await autoloop(["task", "list", dir, "--json"], { cwd: "/" })).stdout);
    expect(json.done[0]).toMatchObject({ id: "task-1", status: "done" });
    const unknown = await autoloop(["task", "complete", "task-42"], { cwd: "/", env });
    expect(unknown.exitCode).not.toBe(0);
    expect(unknown.stderr).toContain('unknown task id "task-42"');
    expect((await autoloop(["task", "remove", "task-2"], { cwd: "/", env })).stdout).toBe(
      "removed task-2",
    );
    expect(readFileSync(join(dir, ".autoloop/tasks.jsonl"), "utf8")).toContain(
      '"reason": "manual"',
    );
  });

  it("assigns unique ids when two processes add at once", async () => {
    const dir = tempDir();
    const env = { AUTOLOOP_TASKS_FILE: join(dir, "tasks.jsonl") };
    const adds = Array.from({ length: 16 }, (_, i) =>
      autoloop(["task", "add", `task number ${i}`], { cwd: dir, env }),
    );
    const results = await Promise.all(adds);
    expect(results.every((r) => r.exitCode === 0)).toBe(true);
    const ids = results.map((r) => r.stdout);
    expect(new Set(ids).size).toBe(16);
    const lines = readFileSync(env.AUTOLOOP_TASKS_FILE, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(16);
    expect(new Set(lines.map((l) => JSON.parse(l).id)).size).toBe(16);
  });
});
