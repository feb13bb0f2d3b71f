// What an operator sends a live run, whatever they send it from (`autoloop control`,
// `autoloop-cron answer|guide|interrupt`, the status page, MCP): an answer to the question it
// waits on, guidance for its next prompt, or an interrupt of the agent's current turn. Each is
// checked against the run's journal first; a request that cannot land writes nothing.

import { hostname, userInfo } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { JournalWriter } from "../../journal/append.js";
import { fieldText, type JournalRecord, journalTimestamp } from "../../journal/codec.js";
import { readJournal } from "../../journal/reader.js";
import { type RegistryEntry, readRegistry } from "../../journal/registry-view.js";
import { UserError } from "../../util/errors.js";
import { isProcessAlive } from "../../util/process.js";
import { linkUnder } from "../../util/untrusted-file.js";
import { isValidRunId } from "../run-id.js";
import { TaskStore } from "../tasks/store.js";
import { answerIn } from "./ask.js";
import { type LaunchRecord, readLaunchRecord } from "./launch-record.js";
import { operatorStateHome, privateRunPaths } from "./private-run.js";
import { readQuestionRecord } from "./question-record.js";
import {
  appendRequest,
  buildRequest,
  type ControlPaths,
  type ControlRequest,
  controlPaths,
  readControl,
} from "./requests.js";
import { noWake, registryPidTarget, type WakeTarget, wake } from "./wake.js";

/** A run as the registry beside its journal knows it. */
export interface RunRef {
  runId: string;
  journalFile: string;
  stateDir: string;
  status: string;
  pid?: number;
  host?: string;
  /**
   * What our harness recorded when it launched the run (its private folder): present, requests
   * and the question go through that folder; absent (another harness), through the run's own.
   */
  launch?: LaunchRecord;
}

/** "cli:alice@build-host": who typed a command, for the journal and the incident. */
export function cliOperator(): string {
  let user = "unknown";
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (a container's arbitrary uid): the host still says where.
  }
  return `cli:${user}@${hostname()}`;
}

/**
 * The run `partial` names in the registry beside `journalFile`: its exact id, else the one run
 * whose id starts with it. Errors say what to type instead (exit 1, as the public autoloop).
 */
export function findRun(journalFile: string, partial: string): RunRef {
  if (partial === "" || partial.includes("/") || partial.includes(".."))
    throw new UserError(
      `no run matching ${JSON.stringify(partial)}: a run id has no "/" or ".."`,
      1,
    );
  const runs = readRegistry(journalFile);
  let entry: RegistryEntry | undefined = runs.get(partial);
  if (entry === undefined) {
    const matches = [...runs.keys()].filter((id) => id.startsWith(partial));
    if (matches.length > 1)
      throw new UserError(
        `ambiguous run id ${JSON.stringify(partial)}; it matches:\n  ${matches.join("\n  ")}`,
        1,
      );
    entry = matches.length === 1 ? runs.get(matches[0]!) : undefined;
  }
  if (entry === undefined || !isValidRunId(entry.run_id))
    throw new UserError(
      `no run matching ${JSON.stringify(partial)} in ${journalFile}; \`autoloop inspect runs\` lists them`,
      1,
    );
  // The registry is the run's own file (its agent can write it): the journal is the one looked
  // up, and the state dir must lie inside that journal's folder.
  const home = dirname(resolve(journalFile));
  const stateDir = typeof entry.state_dir === "string" ? resolve(home, entry.state_dir) : "";
  const inside = stateDir === home || stateDir.startsWith(`${home}${sep}`);
  // Our harness's own record of the run, when it is this journal's run.
  const launch = readLaunchRecord(entry.run_id, journalFile);
  const pid = launch?.pid ?? entry.pid;
  const host = launch?.host ?? (typeof entry.host === "string" ? entry.host : undefined);
  return {
    runId: entry.run_id,
    journalFile,
    stateDir: inside ? stateDir : "",
    status: entry.status,
    ...(pid !== undefined && { pid }),
    ...(host !== undefined && { host }),
    ...(launch !== undefined && { launch }),
  };
}

export interface PendingQuestion {
  questionId: string;
  question: string;
  iteration: string;
  askedAt: string;
  /** When the run stops waiting (absent from other harnesses' records). */
  timeoutAt?: string;
}

/** What the journal says of a run's questions: the one it waits on, and whether it ended. */
export function questionState(
  records: readonly JournalRecord[],
  runId: string,
): { pending?: PendingQuestion; ended: boolean } {
  let pending: PendingQuestion | undefined;
  let ended = false;
  for (const r of records) {
    if (r.run !== runId || r.shape !== "system") continue;
    if (r.topic === "ask.pending") {
      const timeoutAt = fieldText(r, "timeout_at");
      pending = {
        questionId: fieldText(r, "question_id"),
        question: fieldText(r, "question"),
        iteration: r.iteration ?? "",
        askedAt: r.ts,
        ...(timeoutAt !== "" && { timeoutAt }),
      };
    } else if (r.topic === "ask.answered" || r.topic === "ask.timeout") {
      if (pending?.questionId === fieldText(r, "question_id")) pending = undefined;
    } else if (r.topic === "loop.complete" || r.topic === "loop.stop") ended = true;
    else if (r.topic === "loop.resume") {
      ended = false; // `autoloop resume`: the run goes on under its id
      pending = undefined;
    }
  }
  return ended ? { ended } : { ...(pending && { pending }), ended };
}

/**
 * The question the run waits on now, as its harness recorded it (the journal's, for another
 * harness); an error saying why when it waits on none.
 */
export function waitingQuestion(ref: RunRef): PendingQuestion {
  const { pending: claimed, ended } = questionState(readJournal(ref.journalFile).items, ref.runId);
  if (ended) throw new UserError(`run ${ref.runId} has ended; it waits for no answer`, 1);
  const pending = ref.launch === undefined ? claimed : askedQuestion(ref, claimed);
  if (pending === undefined)
    throw new UserError(
      `run ${ref.runId} is not waiting for an answer (no open question in its journal); \`autoloop-cron guide\` or \`autoloop control guide\` sends guidance for its next iteration instead`,
      1,
    );
  if (!harnessAlive(ref))
    throw new UserError(
      `run ${ref.runId} asked ${pending.questionId}, but its harness (pid ${ref.pid}) is gone; nobody would read the answer`,
      1,
    );
  return pending;
}

/** The question the run waits on, if any (its harness's record; for views, never an error). */
export function openQuestion(ref: RunRef): PendingQuestion | undefined {
  try {
    return waitingQuestion(ref);
  } catch {
    return undefined;
  }
}

/** The question our harness recorded in the run's private folder, if it still waits on it. */
function askedQuestion(
  ref: RunRef,
  claimed: PendingQuestion | undefined,
): PendingQuestion | undefined {
  const asked = readQuestionRecord(privateRunPaths(ref.runId, ref.journalFile));
  if (asked?.state === "waiting")
    return {
      questionId: asked.questionId,
      question: asked.question,
      iteration: asked.iteration,
      askedAt: asked.askedAt,
      timeoutAt: asked.timeoutAt,
    };
  const same = claimed === undefined || asked?.questionId === claimed.questionId;
  if (asked?.state === "answered" && same)
    throw new UserError(
      `run ${ref.runId}'s question ${asked.questionId} was answered already${asked.answeredBy ? ` by ${asked.answeredBy}` : ""} at ${asked.endedAt}, and it waits on no other; nothing was sent`,
      1,
    );
  if (claimed !== undefined)
    throw new UserError(
      `run ${ref.runId}'s journal shows question ${claimed.questionId}, but its harness asked no such question (no record in ${privateRunPaths(ref.runId, ref.journalFile).dir}): that journal line is not the harness's; nothing was sent`,
      1,
    );
  return undefined;
}

/** The harness still runs here, or its liveness cannot be judged from here (another host). */
function harnessAlive(ref: RunRef): boolean {
  if (ref.pid === undefined || (ref.host !== undefined && ref.host !== hostname())) return true;
  return isProcessAlive(ref.pid);
}

/** Where the run reads requests: its private folder, or (another harness) its own `control/`. */
export function requestPaths(ref: RunRef): ControlPaths {
  if (ref.launch !== undefined)
    return noLinks(operatorStateHome(), privateRunPaths(ref.runId, ref.journalFile).control);
  if (ref.stateDir === "")
    throw new UserError(
      `run ${ref.runId} has no state_dir inside ${dirname(ref.journalFile)} in its registry record`,
      1,
    );
  return noLinks(dirname(ref.journalFile), controlPaths(ref.stateDir));
}

/** `paths`, unless a folder on the way below `home` is a link (a run may plant one). */
function noLinks(home: string, paths: ControlPaths): ControlPaths {
  const link = linkUnder(home, paths.requests);
  if (link !== undefined)
    throw new UserError(
      `${link} is a symbolic link: the run's control folder may not lead elsewhere; nothing was sent`,
      1,
    );
  return paths;
}

/**
 * Answers the question `ref` waits on (`questionId`, when given, must be it). Returns the
 * question answered.
 */
export function respond(
  ref: RunRef,
  answer: string,
  by: string,
  questionId?: string,
): PendingQuestion {
  if (answer.trim() === "")
    throw new UserError("an empty answer answers nothing; say something", 1);
  if (ref.launch === undefined)
    throw new UserError(
      `run ${ref.runId} has no launch record in ${privateRunPaths(ref.runId, ref.journalFile).dir}: it is not a run of this harness under this account and state home (check HOME, XDG_STATE_HOME, AUTOLOOP_OPERATOR_DIR), or its record was removed; an answer written where it could not be read would be lost, so nothing was sent`,
      1,
    );
  const paths = requestPaths(ref);
  const pending = waitingQuestion(ref);
  if (questionId !== undefined && questionId !== pending.questionId)
    throw new UserError(
      `run ${ref.runId} waits on question ${pending.questionId}, not ${questionId}`,
      1,
    );
  const answered = (why: string, r: ControlRequest) =>
    new UserError(
      `run ${ref.runId}'s question ${pending.questionId} was answered already${r.by ? ` by ${r.by}` : ""} at ${r.requestedAt} (the run takes the first answer); ${why}`,
      1,
    );
  const first = () =>
    readControl(paths).requests.find((r) => answerIn(r, ref.runId, pending.questionId));
  const earlier = first();
  if (earlier !== undefined) throw answered("nothing was sent", earlier);
  // No lock (a lock file in a folder a run may reach could hold the daemon's thread): the
  // answer is appended, and when another landed first, this one is said to be ignored.
  const request = buildRequest(
    ref.runId,
    "respond",
    "respond",
    { questionId: pending.questionId, answer },
    by,
  );
  appendRequest(paths, request);
  const taken = first();
  if (taken !== undefined && taken.id !== request.id)
    throw answered(`yours (${request.id}) was written after it and the run ignores it`, taken);
  return pending;
}

/** The latest `loop.start` or `loop.resume` of the run: when its current harness began it. */
function runStartedAt(ref: RunRef): string | undefined {
  const starts = readJournal(ref.journalFile).items.filter(
    (r) => r.run === ref.runId && (r.topic === "loop.start" || r.topic === "loop.resume"),
  );
  return starts.at(-1)?.ts;
}

/**
 * What a guide or interrupt may wake for a run known only by its registry (a run started by
 * hand, or `autoloop control` in the project): the registry's pid, if /proc shows it is the
 * run's harness (wake.ts). Runs the daemon launched are woken by its own records instead.
 */
export function registryTarget(ref: RunRef): WakeTarget {
  if (ref.status !== "running" || ref.pid === undefined)
    return noWake("the run's registry names no running harness");
  if (ref.host !== undefined && ref.host !== hostname())
    return noWake("the run's harness is on another host");
  return registryPidTarget(ref.pid, runStartedAt(ref));
}

/** Whether the request woke the harness now; when not, why (it reads it at its next iteration). */
export type Woken = { woken: true } | { woken: false; why: string };

function wakeFor(target: WakeTarget): Woken {
  if (wake(target)) return { woken: true };
  return { woken: false, why: target.kind === "none" ? target.why : "the harness is gone" };
}

function liveRun(ref: RunRef, what: string): void {
  const { ended } = questionState(readJournal(ref.journalFile).items, ref.runId);
  if (ended || ref.status !== "running" || !harnessAlive(ref))
    throw new UserError(`run ${ref.runId} is not running; there is no turn to ${what}`, 1);
}

/** Journals `message` as the operator's guidance for the run's next prompt. */
function journalGuidance(ref: RunRef, message: string): void {
  const writer = new JournalWriter(ref.journalFile);
  try {
    writer.append({
      shape: "agent",
      run: ref.runId,
      iteration: "",
      topic: "operator.guidance",
      ts: journalTimestamp(),
      v: 1,
      payload: message,
      source: "operator",
    });
  } finally {
    writer.close();
  }
}

/**
 * Completes or removes a task of a live run (a run stuck at its gate on a task only a human
 * could close), and tells the run so in its next prompt.
 */
export function operatorTask(
  ref: RunRef,
  action: "complete" | "remove",
  taskId: string,
  by: string,
  reason = "",
): string {
  liveRun(ref, `${action} a task of`);
  const store = new TaskStore(join(dirname(ref.journalFile), "runs", ref.runId, "tasks.jsonl"));
  const text =
    action === "complete"
      ? store.complete(taskId).task.text
      : store.remove(taskId, reason || `removed by ${by}`).text;
  const done = action === "complete" ? "completed" : "removed";
  journalGuidance(
    ref,
    `The operator (${by}) ${done} task ${taskId} ("${text}")${reason ? `: ${reason}` : "."}`,
  );
  return `${done} task ${taskId} of ${ref.runId} ("${text}"); the run's next prompt says so`;
}

/**
 * Guidance for the run's next prompt, journaled as `operator.guidance` (and, with `interrupt`,
 * the agent's current turn stopped so that the next one starts with it).
 */
export function guide(
  ref: RunRef,
  message: string,
  by: string,
  options: { interrupt: boolean; target: WakeTarget },
): Woken {
  if (message.trim() === "") throw new UserError("empty guidance guides nothing; say something", 1);
  liveRun(ref, "guide");
  journalGuidance(ref, message);
  const payload = { message, interrupt: options.interrupt };
  appendRequest(requestPaths(ref), buildRequest(ref.runId, "guide", "guide", payload, by));
  return options.interrupt ? wakeFor(options.target) : { woken: false, why: "no interrupt asked" };
}

/** Stops the agent's current turn; the run goes on with its next iteration. */
export function interrupt(ref: RunRef, reason: string, by: string, target: WakeTarget): Woken {
  liveRun(ref, "interrupt");
  appendRequest(requestPaths(ref), buildRequest(ref.runId, "interrupt", reason, {}, by));
  return wakeFor(target);
}
