// Materialization of a tasks file (docs/formats.md, "Tasks file"): newest entry per id wins, tombstoned ids vanish.
import { liveNewestFirst } from "../store/jsonl-store.js";
import type { TaskEntry, TaskPriority, TasksFileEntry } from "./entry.js";

export interface TaskView {
  /** High, normal, low priority; oldest first within each. */
  open: TaskEntry[];
  /** Most recently completed first. */
  done: TaskEntry[];
}

const PRIORITY_RANK: Record<TaskPriority, number> = { high: 0, normal: 1, low: 2 };

export function materialize(entries: readonly TasksFileEntry[]): TaskView {
  const open: TaskEntry[] = [];
  const done: TaskEntry[] = [];
  for (const entry of liveNewestFirst(entries, "task-tombstone")) {
    (entry.status === "done" ? done : open).push(entry);
  }
  open.sort(
    (a, b) =>
      PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] ||
      compareText(a.created, b.created) ||
      idNumber(a.id) - idNumber(b.id),
  );
  done.sort(
    (a, b) => compareText(b.completed ?? "", a.completed ?? "") || idNumber(b.id) - idNumber(a.id),
  );
  return { open, done };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function idNumber(id: string): number {
  const n = Number.parseInt(id.replace(/^task-/, ""), 10);
  return Number.isNaN(n) ? 0 : n;
}

/** Open tasks that block completion: every open task that is not soft. */
export function blockingTasks(view: TaskView): TaskEntry[] {
  return view.open.filter((t) => !t.soft);
}

/** The latest state of one task id, or undefined when unknown or tombstoned. */
export function findTask(view: TaskView, id: string): TaskEntry | undefined {
  return view.open.find((t) => t.id === id) ?? view.done.find((t) => t.id === id);
}
