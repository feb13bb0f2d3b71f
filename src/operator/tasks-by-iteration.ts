// A run's tasks as they stood after each of its iterations, from the tasks file's entries and
// their timestamps (whole seconds: a change in the second an iteration ended may show a step
// early). Pure: entries and instants in, snapshots out.
import type { TaskEntry, TasksFileEntry } from "../harness/tasks/entry.js";
import { materialize } from "../harness/tasks/materialize.js";

export type TaskChange = "added" | "done" | "reopened" | "edited" | "removed";

export interface TaskStep {
  id: string;
  text: string;
  status: "open" | "done";
  priority: TaskEntry["priority"];
  /** What the iteration did to it; absent when it stood as before. */
  change?: TaskChange;
}

export interface TaskSnapshot {
  open: number;
  done: number;
  /** Open first (as the prompt lists them), then done, then removed in this step. */
  tasks: TaskStep[];
  /** Tasks past the list's cap. */
  omitted: number;
}

/** When each line was written: its own time, or the line above's when later (an edit keeps its first `created`). */
function lineTimes(entries: readonly TasksFileEntry[]): string[] {
  let last = "";
  return entries.map((e) => {
    const own = e.type === "task" && e.status === "done" ? (e.completed ?? "") : e.created;
    if (own > last) last = own;
    return last;
  });
}

const second = (iso: string) => `${iso.slice(0, 19)}Z`;

function changeOf(before: TaskEntry | undefined, after: TaskEntry): TaskChange | undefined {
  if (before === undefined) return "added";
  if (before.status !== after.status) return after.status === "done" ? "done" : "reopened";
  return before.text !== after.text || before.priority !== after.priority ? "edited" : undefined;
}

const stepOf = (t: TaskEntry, change: TaskChange | undefined): TaskStep => ({
  id: t.id,
  text: t.text,
  status: t.status,
  priority: t.priority,
  ...(change && { change }),
});

/** The live tasks now, against those after the step before. */
function snapshot(
  before: ReadonlyMap<string, TaskEntry>,
  live: ReadonlyMap<string, TaskEntry>,
  maxTasks: number,
): TaskSnapshot {
  const view = materialize([...live.values()]);
  const all = [
    ...[...view.open, ...view.done].map((t) => stepOf(t, changeOf(before.get(t.id), t))),
    ...[...before.values()].filter((t) => !live.has(t.id)).map((t) => stepOf(t, "removed")),
  ];
  const tasks = all.slice(0, maxTasks);
  return {
    open: view.open.length,
    done: view.done.length,
    tasks,
    omitted: all.length - tasks.length,
  };
}

/**
 * The tasks after each iteration, given the instants the iterations ended (undefined for one
 * still running: it gets the file as it is now). An entry belongs to the first iteration that
 * ended in its second or later.
 */
export function tasksByIteration(
  entries: readonly TasksFileEntry[],
  endedAt: ReadonlyArray<string | undefined>,
  maxTasks = 50,
): TaskSnapshot[] {
  const times = lineTimes(entries);
  const live = new Map<string, TaskEntry>();
  let before: ReadonlyMap<string, TaskEntry> = new Map();
  let taken = 0;
  return endedAt.map((end) => {
    for (; taken < entries.length; taken++) {
      if (end !== undefined && times[taken]! > second(end)) break;
      const e = entries[taken]!;
      if (e.type === "task") live.set(e.id, e);
      else live.delete(e.targetId);
    }
    const snap = snapshot(before, live, maxTasks);
    before = new Map(live);
    return snap;
  });
}
