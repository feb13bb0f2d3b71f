// The append-only tasks file: add, complete, update, remove, read. Every change is one
// appended line; id assignment happens under a cross-process lock so two concurrent
// `task add` calls never share an id or lose a line.
import { UserError } from "../../util/errors.js";
import { entryTimestamp, JsonlStore } from "../store/jsonl-store.js";
import {
  decodeTaskEntry,
  encodeTaskEntry,
  type TaskEntry,
  type TaskPriority,
  type TasksFileEntry,
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
  private readonly file: JsonlStore<TasksFileEntry>;

  constructor(
    readonly path: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    const codec = { encode: encodeTaskEntry, decode: decodeTaskEntry };
    this.file = new JsonlStore(path, codec, MAX_TASKS_FILE_BYTES);
  }

  /** Every entry in file order; unreadable lines are skipped. */
  entries(): TasksFileEntry[] {
    return this.file.entries();
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
    return this.file.change((entries) => {
      const entry: TaskEntry = {
        type: "task",
        id: nextId(entries),
        text: clean,
        status: "open",
        source: options.source ?? "manual",
        created: entryTimestamp(this.now()),
        priority: options.priority ?? "normal",
        soft: options.soft ?? false,
      };
      return { entry, result: entry };
    });
  }

  complete(id: string): CompleteResult {
    return this.file.change<CompleteResult>((entries) => {
      const task = this.existing(entries, id);
      if (task.status === "done") return { result: { kind: "already_done", task } };
      const entry: TaskEntry = { ...task, status: "done", completed: entryTimestamp(this.now()) };
      return { entry, result: { kind: "completed", task: entry } };
    });
  }

  update(id: string, text: string): TaskEntry {
    const clean = text.trim();
    if (clean === "")
      throw new UserError("a task needs a text: autoloop task update <id> <text...>");
    return this.file.change((entries) => {
      const entry: TaskEntry = { ...this.existing(entries, id), text: clean };
      return { entry, result: entry };
    });
  }

  remove(id: string, reason = "manual"): TaskEntry {
    return this.file.change((entries) => {
      const task = this.existing(entries, id);
      const entry: TasksFileEntry = {
        type: "task-tombstone",
        id: nextId(entries),
        targetId: id,
        reason: reason.trim() === "" ? "manual" : reason.trim(),
        created: entryTimestamp(this.now()),
      };
      return { entry, result: task };
    });
  }

  private existing(entries: TasksFileEntry[], id: string): TaskEntry {
    const task = findTask(materialize(entries), id);
    if (task === undefined) throw new UnknownTaskError(id, this.path);
    return task;
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
