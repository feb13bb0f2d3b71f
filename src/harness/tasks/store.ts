// The append-only tasks file: add, complete, update, remove, read. Every change is one
// appended line; id assignment happens under a cross-process lock so two concurrent
// `task add` calls never share an id or lose a line.
import { appendLineOnce } from "../../journal/append.js";
import { parseLines, readAllLines } from "../../journal/reader.js";
import { UserError } from "../../util/errors.js";
import { withFileLock } from "../../util/file-lock.js";
import {
  decodeTaskEntry,
  encodeTaskEntry,
  type TaskEntry,
  type TaskPriority,
  type TasksFileEntry,
  taskTimestamp,
} from "./entry.js";
import { findTask, materialize, type TaskView } from "./materialize.js";

export type CompleteResult =
  | { kind: "completed"; task: TaskEntry }
  | { kind: "already_done"; task: TaskEntry };

export class UnknownTaskError extends UserError {
  constructor(
    readonly taskId: string,
    path: string,
  ) {
    super(
      `unknown task id ${JSON.stringify(taskId)} in ${path}; run \`autoloop task list\` to see the ids`,
      1,
    );
    this.name = "UnknownTaskError";
  }
}

/** 64 MiB: thousands of tasks take a few hundred KiB; a larger file is not the harness's. */
export const MAX_TASKS_FILE_BYTES = 64 << 20;

export class TaskStore {
  constructor(
    readonly path: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Every entry in file order; unreadable lines are skipped. */
  entries(): TasksFileEntry[] {
    return parseLines(
      readAllLines(this.path, 0, { maxFileBytes: MAX_TASKS_FILE_BYTES }),
      decodeTaskEntry,
    ).items;
  }

  view(): TaskView {
    return materialize(this.entries());
  }

  add(
    text: string,
    options: { priority?: TaskPriority; soft?: boolean; source?: string } = {},
  ): TaskEntry {
    const clean = text.trim();
    if (clean === "") throw new UserError("a task needs a text: autoloop task add <text...>");
    return this.locked((entries) => {
      const entry: TaskEntry = {
        type: "task",
        id: nextId(entries),
        text: clean,
        status: "open",
        source: options.source ?? "manual",
        created: taskTimestamp(this.now()),
        priority: options.priority ?? "normal",
        soft: options.soft ?? false,
      };
      return { entry, result: entry };
    });
  }

  complete(id: string): CompleteResult {
    return this.locked<CompleteResult>((entries) => {
      const task = this.existing(entries, id);
      if (task.status === "done") return { result: { kind: "already_done", task } };
      const entry: TaskEntry = { ...task, status: "done", completed: taskTimestamp(this.now()) };
      return { entry, result: { kind: "completed", task: entry } };
    });
  }

  update(id: string, text: string): TaskEntry {
    const clean = text.trim();
    if (clean === "")
      throw new UserError("a task needs a text: autoloop task update <id> <text...>");
    return this.locked((entries) => {
      const entry: TaskEntry = { ...this.existing(entries, id), text: clean };
      return { entry, result: entry };
    });
  }

  remove(id: string, reason = "manual"): TaskEntry {
    return this.locked((entries) => {
      const task = this.existing(entries, id);
      const entry: TasksFileEntry = {
        type: "task-tombstone",
        id: nextId(entries),
        targetId: id,
        reason: reason.trim() === "" ? "manual" : reason.trim(),
        created: taskTimestamp(this.now()),
      };
      return { entry, result: task };
    });
  }

  private existing(entries: TasksFileEntry[], id: string): TaskEntry {
    const task = findTask(materialize(entries), id);
    if (task === undefined) throw new UnknownTaskError(id, this.path);
    return task;
  }

  /** Reads the file and appends at most one entry, all under the lock. */
  private locked<T>(
    change: (entries: TasksFileEntry[]) => { entry?: TasksFileEntry; result: T },
  ): T {
    return withFileLock(this.path, () => {
      const { entry, result } = change(this.entries());
      if (entry !== undefined) appendLineOnce(this.path, encodeTaskEntry(entry));
      return result;
    });
  }
}

/** `task-<entries in the file + 1>`, never below an id already used. */
function nextId(entries: readonly TasksFileEntry[]): string {
  let max = entries.length;
  for (const e of entries) {
    const n = Number.parseInt(e.id.replace(/^task-/, ""), 10);
    if (Number.isInteger(n) && n > max) max = n;
  }
  return `task-${max + 1}`;
}
