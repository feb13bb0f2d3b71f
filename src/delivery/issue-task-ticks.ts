// Task sync's push: once a run that started with its issues' checkboxes as tasks ended
// (completed or not), the boxes whose tasks it completed are ticked in each issue's body, read
// again just before the edit; a box the team edited or removed meanwhile is left alone. The run
// only says which of the tasks it was given are done: no text of its reaches the issue, and a
// task it added is not pushed. A step of the issue follow-ups (issue-followups.ts), recorded
// once done, and safe to repeat: a box ticked already is not ticked again.
import { decodeTaskEntry, type TasksFileEntry } from "../harness/tasks/entry.js";
import { findTask, materialize } from "../harness/tasks/materialize.js";
import type { AlertLogger } from "../monitor/channels/delivery.js";
import type { RunIssues, TaskSync } from "../tracker/run-issues.js";
import { tickBoxes } from "../tracker/task-list.js";
import type { Tracker } from "../tracker/tracker.js";
import { linkUnder, readSmallRegularFile } from "../util/untrusted-file.js";

// A run's tasks file past this is not read: none of its boxes are ticked.
const MAX_TASKS_BYTES = 8 << 20;

/** The synced tasks the run's tasks file says are done (none, when it cannot be read safely). */
export function doneSyncedTasks(sync: TaskSync): string[] {
  if (linkUnder(sync.projectDir, sync.file) !== undefined) return [];
  const text = readSmallRegularFile(sync.file, MAX_TASKS_BYTES) ?? "";
  const entries = text
    .split("\n")
    .map(decodeTaskEntry)
    .filter((e): e is TasksFileEntry => e !== undefined);
  const view = materialize(entries);
  return sync.boxes.filter((b) => findTask(view, b.task)?.status === "done").map((b) => b.task);
}

/**
 * Ticks the boxes of the tasks the run completed, issue by issue; `save` records each step.
 * A tracker without body edits (its module has not got them yet) is skipped, said in the log.
 */
export async function tickDoneBoxes(
  entry: RunIssues,
  sync: TaskSync,
  tracker: Tracker,
  save: () => void,
  log: AlertLogger,
): Promise<void> {
  if (sync.done === undefined) {
    sync.done = doneSyncedTasks(sync);
    save();
  }
  entry.ticked ??= [];
  const ticked = entry.ticked;
  for (const issue of entry.issues) {
    if (ticked.includes(issue.id)) continue;
    const refs = sync.boxes
      .filter((b) => b.issue === issue.id && !b.checked && sync.done!.includes(b.task))
      .map((b) => ({ ordinal: b.ordinal, digest: b.digest }));
    if (refs.length > 0) {
      if (tracker.issueBody === undefined || tracker.editIssueBody === undefined) {
        log.warn({ run: entry.runId, issue: issue.ref }, "this tracker cannot tick boxes yet");
      } else {
        const out = tickBoxes(await tracker.issueBody(issue.id), refs);
        if (out.ticked.length > 0) await tracker.editIssueBody(issue.id, out.body);
        const counts = { ticked: out.ticked.length, already: out.already.length };
        log.info(
          { run: entry.runId, issue: issue.ref, ...counts, leftAlone: out.gone.length },
          "task sync: boxes of done tasks ticked",
        );
      }
    }
    ticked.push(issue.id);
    save();
  }
}
