// What the preset library's end-to-end tests share: a project to run in, and the checks every
// new preset's run must pass (completed, refused once at the task gate, then let through).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { JournalRecord } from "../../src/journal/codec.js";
import { gitProject, type LoggedInRun } from "../agents/suite.js";
import { git } from "../helpers/git.js";
import { field, topics } from "../helpers/journal.js";

export const TIMEOUT = 120_000;

/** A git project (see gitProject) with `files` added in a second commit. */
export function projectWith(files: Record<string, string>): string {
  const dir = gitProject();
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "the project's code");
  return dir;
}

const outputs = (journal: JournalRecord[]) =>
  journal
    .filter((r) => r.topic === "iteration.finish")
    .map((r) => field(r, "output"))
    .join("\n---\n");

/**
 * The run completed through its completion event after the gate refused it once, with
 * task-1 open, and every required event was emitted before it.
 */
export function expectGatedCompletion(run: LoggedInRun, required: readonly string[]): void {
  expect(run.exitCode, `${run.stderr}\n${outputs(run.journal)}`).toBe(0);
  const all = topics(run.journal);
  expect(all.at(-1)).toBe("loop.complete");
  expect(field(run.journal.at(-1), "reason")).toBe("completion_event");
  const gates = run.journal.filter((r) => r.topic === "task.gate");
  expect(gates).toHaveLength(1);
  expect(field(gates[0], "blocked_topic")).toBe("task.complete");
  expect(field(gates[0], "open_tasks")).toBe("task-1");
  const completed = all.lastIndexOf("task.complete");
  expect(completed).toBeGreaterThan(all.indexOf("task.gate"));
  for (const topic of required) {
    const at = all.indexOf(topic);
    expect(at, `${topic} emitted`).toBeGreaterThanOrEqual(0);
    expect(at, `${topic} before task.complete`).toBeLessThan(completed);
  }
}

/** The branch of a worktree run, from its `worktree.finish` record (status completed). */
export function worktreeBranch(run: LoggedInRun): string {
  const finish = run.journal.find((r) => r.topic === "worktree.finish");
  expect(field(finish, "status")).toBe("completed");
  const branch = field(finish, "branch");
  expect(branch).toMatch(/^autoloop\//);
  return branch;
}

/** The project's checkout after a worktree run: as committed, the branch holds the work. */
export function expectCheckoutUntouched(project: string, files: Record<string, string>): void {
  expect(git(project, "status", "--porcelain")).toBe("");
  expect(git(project, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe("main");
  for (const [name, content] of Object.entries(files))
    expect(readFileSync(join(project, name), "utf8")).toBe(content);
}
