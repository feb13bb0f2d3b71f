// What a run took from its schedule's tracker, and how far the daemon has told the issues of
// its end: one file per run (`<state>/issue-claims/runs/<run-id>.json`), written before the run
// is spawned and rewritten atomically after each step, removed when every issue was told. The
// files are the durable queue of issue follow-ups: a daemon killed at any point resumes them.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";
import { writeFileAtomic } from "../util/atomic-write.js";
import { TRACKERS } from "./tracker.js";

const secretRef = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("env"), name: z.string() }),
  z.object({ kind: z.literal("file"), path: z.string() }),
]);

const sourceSchema = z.object({
  kind: z.enum(TRACKERS),
  repository: z.string(),
  apiUrl: z.string(),
  label: z.string().optional(),
  workingLabel: z.string().optional(),
  doneLabel: z.string().optional(),
  state: z.string().optional(),
  workingState: z.string().optional(),
  doneState: z.string().optional(),
  limit: z.number(),
  token: secretRef,
});

const endSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("completed"),
    pullRequest: z.string().optional(),
    /** What came of its pull request, when none was made. */
    note: z.string().optional(),
    /** Its work did not reach a pull request: the issue is to be taken again. */
    giveBack: z.boolean().optional(),
  }),
  z.object({ kind: z.literal("failed"), status: z.string(), detail: z.string().optional() }),
  z.object({ kind: z.literal("not_started"), why: z.string() }),
]);

/** Task sync: which of the run's tasks came from which checkbox of an issue (tracker/task-list.ts). */
const taskSyncSchema = z.object({
  /** The run's tasks file, written by the daemon before the spawn. */
  file: z.string(),
  /** The project it is in (nothing on the way to the file may be a link). */
  projectDir: z.string(),
  boxes: z.array(
    z.object({
      issue: z.string(),
      task: z.string(),
      ordinal: z.number().int(),
      line: z.number().int(),
      /** The box's text as a digest, to know it again; the task's text as the run got it. */
      digest: z.string(),
      text: z.string(),
      /** Ticked already when the run started: never pushed back. */
      checked: z.boolean(),
    }),
  ),
  /** The synced tasks the run left done, read once from its tasks file after it ended. */
  done: z.array(z.string()).optional(),
});
export type TaskSync = z.output<typeof taskSyncSchema>;

/** How a run that took issues ended, as its issues are told. */
export type IssueEnd = z.output<typeof endSchema>;

const runIssuesSchema = z.object({
  schedule: z.string(),
  runId: z.string(),
  source: sourceSchema,
  issues: z.array(
    z.object({ id: z.string(), ref: z.string(), title: z.string(), url: z.string() }),
  ),
  takenAt: z.string(),
  /** The key its run's slot is claimed under: who ran it, for a daemon whose ledger does not know. */
  slotKey: z.string().optional(),
  /** Its run delivers a pull request: the end waits for it (`awaiting`) to be made. */
  awaiting: z.boolean().optional(),
  end: endSchema.optional(),
  /** When the end was known: a follow-up failing for a day from here is given up. */
  endedAt: z.string().optional(),
  taskSync: taskSyncSchema.optional(),
  /** Issue ids whose boxes of done tasks were ticked (task sync), before they are told. */
  ticked: z.array(z.string()).optional(),
  /** Issue ids told of the end (commented), and released (labels or state). */
  commented: z.array(z.string()).default([]),
  released: z.array(z.string()).default([]),
  failures: z.number().int().default(0),
  nextAt: z.string().optional(),
  lastError: z.string().optional(),
});
export type RunIssues = z.output<typeof runIssuesSchema>;

const runsDir = (stateDir: string) => join(stateDir, "issue-claims", "runs");
const fileOf = (stateDir: string, runId: string) =>
  join(runsDir(stateDir), `${encodeURIComponent(runId)}.json`);

export function writeRunIssues(stateDir: string, entry: RunIssues): void {
  writeFileAtomic(fileOf(stateDir, entry.runId), `${JSON.stringify(entry)}\n`);
}

/** The run's record, or undefined (none, or unreadable: the daemon's own file, never a run's). */
export function readRunIssues(stateDir: string, runId: string): RunIssues | undefined {
  try {
    const parsed = runIssuesSchema.safeParse(
      JSON.parse(readFileSync(fileOf(stateDir, runId), "utf8")),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Every run's record still owed a follow-up. */
export function listRunIssues(stateDir: string): RunIssues[] {
  let names: string[];
  try {
    names = readdirSync(runsDir(stateDir)).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  return names
    .map((n) => readRunIssues(stateDir, decodeURIComponent(n.slice(0, -".json".length))))
    .filter((r) => r !== undefined);
}

/** Adds which task came from which box to the run's record (written before its spawn). */
export function recordTaskSync(stateDir: string, runId: string, taskSync: TaskSync): void {
  const entry = readRunIssues(stateDir, runId);
  if (entry !== undefined) writeRunIssues(stateDir, { ...entry, taskSync });
}

export function removeRunIssues(stateDir: string, runId: string): void {
  rmSync(fileOf(stateDir, runId), { force: true });
}
