// Answering, guiding and interrupting a live run from wherever on-call is (the CLI, the status
// page, MCP): one path. The run is found by its id through the ledger (runs the scheduler
// launched) or the monitor's tracker (any run in a watched journal); the request itself goes
// through the harness's control files, checked first (harness/control/operator-requests.ts).
import {
  findRun,
  guide,
  interrupt,
  openQuestion,
  operatorTask,
  type PendingQuestion,
  type RunRef,
  respond,
} from "../harness/control/operator-requests.js";
import { monitorPaths } from "../monitor/paths.js";
import { readTrackerSnapshot } from "../monitor/tracker-file.js";
import type { CronConfig } from "../scheduler/config/config.js";
import { journalPathFor } from "../scheduler/launch/outcome-journal.js";
import type { RunLedger } from "../scheduler/ledger/ledger.js";
import { UserError } from "../util/errors.js";
import { openLedgerAt } from "./run-actions.js";
import { wakeTarget } from "./wake-target.js";

/** A run id as the operator typed it: no path, no control characters. */
function checkId(runId: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(runId) || runId.includes(".."))
    throw new UserError(
      `${JSON.stringify(runId)} is not a run id (letters, digits, . _ -; \`autoloop-cron runs\` lists them)`,
      1,
    );
  return runId;
}

/** A run as the monitor's tracker saved it (only the fields read here, each checked). */
interface TrackedRun {
  run?: unknown;
  journalPath?: unknown;
  question?: unknown;
  terminal?: unknown;
}

/** What runs are found through: the ledger, and the monitor's tracker (read once). */
interface RunSources {
  ledger: RunLedger;
  tracked: TrackedRun[];
}

function runSources(config: CronConfig): RunSources {
  const read = readTrackerSnapshot(monitorPaths(config.stateDir).tracker);
  // No monitor state yet (or none readable): the scheduler's runs are all there is.
  const tracked: TrackedRun[] = read.kind === "read" ? read.snapshot.runs : [];
  return { ledger: openLedgerAt(config.stateDir), tracked };
}

/** The journal a run writes to: the ledger's (scheduled runs), else the monitor's tracker's. */
function journalOf(sources: RunSources, runId: string): string | undefined {
  const replay = sources.ledger.replay(runId);
  const started = replay?.events.findLast((e) => e.event === "started");
  if (started?.event === "started" && started.journalPath !== "") return started.journalPath;
  const scheduled = replay?.events.find((e) => e.event === "scheduled");
  if (scheduled?.event === "scheduled") return journalPathFor(scheduled.cwd);
  const found = sources.tracked.find((r) => r.run === runId && typeof r.journalPath === "string");
  return found?.journalPath as string | undefined;
}

/** The live run `runId` names, from the files the scheduler and the monitor keep. */
export function runRef(
  config: CronConfig,
  runId: string,
  sources: RunSources = runSources(config),
): RunRef {
  const journal = journalOf(sources, checkId(runId));
  if (journal === undefined)
    throw new UserError(
      `no run ${runId} in the ledger or in a journal the monitor watches; \`autoloop-cron runs\` and \`autoloop-cron status\` list them`,
      1,
    );
  const ref = findRun(journal, runId);
  if (ref.runId !== runId) throw new UserError(`no run ${runId} in ${journal}`, 1);
  return ref;
}

/** The question a run waits on, if any (for the page and MCP's `list_questions`). */
export function questionOf(ref: RunRef): PendingQuestion | undefined {
  return openQuestion(ref);
}

export function answerRun(
  config: CronConfig,
  runId: string,
  answer: string,
  by: string,
  questionId?: string,
): string {
  const ref = runRef(config, runId);
  const q = respond(ref, answer, by, questionId);
  return `answered ${q.questionId} of ${runId} ("${q.question.split("\n", 1)[0]}"); the run reads it within a second and goes on`;
}

export function guideRun(
  config: CronConfig,
  runId: string,
  message: string,
  by: string,
  options: { interrupt: boolean },
): string {
  const sources = runSources(config);
  const ref = runRef(config, runId, sources);
  const target = wakeTarget(sources.ledger, ref);
  const woken = guide(ref, message, by, { interrupt: options.interrupt, target });
  if (woken.woken)
    return `guidance sent to ${runId}; its agent's current turn is stopped and the next one starts with it`;
  const why = options.interrupt ? ` (not interrupted: ${woken.why})` : "";
  return `guidance sent to ${runId}; its next iteration starts with it${why}`;
}

/** Completes or removes a live run's task (`autoloop-cron task`). */
export function taskOfRun(
  config: CronConfig,
  runId: string,
  action: "complete" | "remove",
  taskId: string,
  by: string,
  reason = "",
): string {
  return operatorTask(runRef(config, runId), action, taskId, by, reason);
}

export function interruptRun(
  config: CronConfig,
  runId: string,
  reason: string,
  by: string,
): string {
  const sources = runSources(config);
  const ref = runRef(config, runId, sources);
  const woken = interrupt(ref, reason, by, wakeTarget(sources.ledger, ref));
  return woken.woken
    ? `interrupted the current turn of ${runId}; the run goes on with its next iteration`
    : `interrupt queued for ${runId}; the run reads it at its next iteration (not signalled: ${woken.why})`;
}

export interface WaitingQuestion {
  runId: string;
  schedule?: string;
  questionId: string;
  question: string;
  askedAt: string;
  timeoutAt?: string;
}

/** The questions live runs wait on: the scheduler's running runs, and the monitor's runs. */
export function waitingQuestions(config: CronConfig): WaitingQuestion[] {
  const sources = runSources(config);
  const ids = new Map<string, string | undefined>();
  for (const e of sources.ledger.pending()) ids.set(e.runId, e.schedule);
  for (const r of sources.tracked)
    if (typeof r.run === "string" && r.question !== undefined && r.terminal === undefined)
      ids.set(r.run, ids.get(r.run));
  const out: WaitingQuestion[] = [];
  for (const [runId, schedule] of ids) {
    let ref: RunRef;
    try {
      ref = runRef(config, runId, sources);
    } catch {
      continue; // gone, or not a run of a journal we can read
    }
    const q = questionOf(ref);
    if (q === undefined) continue;
    const { questionId, question, askedAt, timeoutAt } = q;
    out.push({
      runId,
      ...(schedule !== undefined && { schedule }),
      questionId,
      question,
      askedAt,
      ...(timeoutAt !== undefined && { timeoutAt }),
    });
  }
  return out;
}
