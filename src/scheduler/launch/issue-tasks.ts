// Task sync's pull: where a run's preset asks for it (`[tasks] sync = "issue"`), the run starts
// with the checkboxes of the issues it took as its tasks, a ticked box as a done task. The
// daemon writes them through the harness's own task store before the spawn (the run never
// gets the tracker's token), and keeps which task came from which box in its own record of the
// run's issues: the run's files are evidence of what it did, never of what it was given.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { loadPreset } from "../../harness/preset/preset.js";
import { TaskStore } from "../../harness/tasks/store.js";
import { issueLine } from "../../tracker/issue-text.js";
import type { TaskSync } from "../../tracker/run-issues.js";
import { boxDigest, type Checkbox, checkboxes } from "../../tracker/task-list.js";
import type { TrackerIssue, TrackerKind, TrackerSource } from "../../tracker/tracker.js";
import { processRedactor } from "../../util/secrets.js";
import { linkUnder } from "../../util/untrusted-file.js";
import type { PresetLaunch } from "./spec.js";

/** Boxes an issue gives its run at most: a longer list is a document, not a run's work. */
export const MAX_SYNCED_BOXES = 100;

/** Whether the run's preset (with the schedule's `set`s) asks for its issues' tasks. */
export function presetSyncsTasks(spec: PresetLaunch): boolean {
  try {
    return loadPreset(spec.preset, spec.sets ?? []).config.tasks.sync === "issue";
  } catch {
    // A preset that does not load fails its run at the start, told there.
    return false;
  }
}

/** `<project>/.autoloop/runs/<run-id>/tasks.jsonl`: where the harness and the monitor look. */
export function runTasksFile(projectDir: string, runId: string): string {
  return join(resolve(projectDir), ".autoloop", "runs", runId, "tasks.jsonl");
}

/** Makes the run's empty tasks file, new, never through a link a run planted; false if not. */
function createTasksFile(projectDir: string, file: string): boolean {
  if (linkUnder(resolve(projectDir), file) !== undefined) return false;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, "", { flag: "wx" });
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes the run's tasks from its issues' checkboxes and returns which came from which box;
 * undefined when the issues have none or the file cannot be made safely (the run then starts
 * with no tasks, as without sync).
 */
export function seedIssueTasks(
  spec: PresetLaunch,
  taken: readonly TrackerIssue[],
  source: TrackerSource,
): TaskSync | undefined {
  const found = taken.flatMap((issue) =>
    checkboxes(issue.body)
      .slice(0, MAX_SYNCED_BOXES)
      .map((box) => ({ issue, box })),
  );
  const file = runTasksFile(spec.cwd, spec.runId);
  if (found.length === 0 || !createTasksFile(spec.cwd, file)) return undefined;
  const store = new TaskStore(file);
  // Several issues' lists in one run: each task says whose it is.
  const text = (issue: TrackerIssue, box: Checkbox) =>
    processRedactor.redact(`${taken.length > 1 ? `${issue.ref} ` : ""}${issueLine(box.text)}`);
  // All added first, then the ticked ones completed: the tasks' ids follow the boxes' order.
  const tasks = found.map(({ issue, box }) =>
    // The public autoloop's source convention for tracker-seeded tasks: `github:42`.
    store.add(text(issue, box), { source: `${source.kind}:${sourceId(source.kind, issue)}` }),
  );
  const boxes = found.map(({ issue, box }, k) => {
    const task = tasks[k]!;
    if (box.checked) store.complete(task.id);
    return {
      issue: issue.id,
      task: task.id,
      ordinal: box.ordinal,
      line: box.line,
      digest: boxDigest(box.text),
      text: task.text,
      checked: box.checked,
    };
  });
  return { file, projectDir: resolve(spec.cwd), boxes };
}

/** An issue as a task's source names it: GitHub's and GitLab's number, Linear's `ENG-12`. */
function sourceId(kind: TrackerKind, issue: { id: string; ref: string }): string {
  return kind === "linear" ? issue.ref : issue.id;
}
