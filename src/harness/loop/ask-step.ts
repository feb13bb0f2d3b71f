// One question to a human, between iterations: `ask.pending` (with when the wait ends), then
// `ask.answered` and the answer as operator guidance for the next prompt, or `ask.timeout`.
// A run stopped while it waits (Ctrl-C, `autoloop-cron stop`) writes no ask record.
import { type AskOutcome, awaitAnswer, questionIdFor } from "../control/ask.js";
import type { PrivateRunPaths } from "../control/private-run.js";
import { type QuestionRecord, writeQuestionRecord } from "../control/question-record.js";
import type { Preset } from "../preset/preset.js";

/** The public autoloop's wait, and a scheduled run's: on-call needs time to see the page. */
const ASK_TIMEOUT_MS = 300_000;
const SCHEDULED_ASK_TIMEOUT_MS = 1_800_000;

/** How long a run waits for an answer: `ask_timeout`, else by how the run was launched. */
export function askTimeoutMs(preset: Preset, trigger: string): number {
  return (
    preset.config.event_loop.ask_timeout ??
    (trigger === "cron" ? SCHEDULED_ASK_TIMEOUT_MS : ASK_TIMEOUT_MS)
  );
}

export interface AskStep {
  runId: string;
  /** How long to wait (askTimeoutMs). */
  timeoutMs: number;
  iteration: number;
  question: string;
  preset: Preset;
  /** The run's private folder: the question is recorded there, answers are read from there. */
  privateRun: PrivateRunPaths;
  signal: AbortSignal;
  system: (topic: string, iteration: number, fields: Record<string, string>) => void;
  /** Journals text as the operator's guidance (a payload record, source "operator"). */
  guide: (iteration: number, text: string) => void;
  progress: (line: string) => void;
}

export async function askHuman(s: AskStep): Promise<AskOutcome["kind"]> {
  const ev = s.preset.config.event_loop;
  const questionId = questionIdFor(s.runId, s.iteration);
  const timeoutAt = new Date(Date.now() + s.timeoutMs).toISOString();
  const asked: QuestionRecord = {
    questionId,
    question: s.question,
    iteration: String(s.iteration),
    askedAt: new Date().toISOString(),
    timeoutAt,
    state: "waiting",
  };
  writeQuestionRecord(s.privateRun, asked);
  s.system("ask.pending", s.iteration, {
    question_id: questionId,
    question: s.question,
    timeout_ms: String(s.timeoutMs),
    timeout_at: timeoutAt,
  });
  s.progress(
    `[ask] waiting for a human response until ${timeoutAt} (id=${questionId}): ${s.question}\n      respond with: autoloop control respond ${s.runId} ${questionId} "<answer>"`,
  );
  const outcome = await awaitAnswer({
    paths: s.privateRun.control,
    runId: s.runId,
    questionId,
    timeoutMs: s.timeoutMs,
    pollMs: ev.ask_poll_ms,
    signal: s.signal,
  });
  writeQuestionRecord(s.privateRun, {
    ...asked,
    state: outcome.kind,
    endedAt: new Date().toISOString(),
    ...(outcome.kind === "answered" && {
      requestId: outcome.requestId,
      ...(outcome.by !== undefined && { answeredBy: outcome.by }),
    }),
  });
  if (outcome.kind === "answered") {
    s.system("ask.answered", s.iteration, {
      question_id: questionId,
      answer: outcome.answer,
      ...(outcome.by !== undefined && { answered_by: outcome.by }),
    });
    s.guide(s.iteration, `Human response to "${s.question}": ${outcome.answer}`);
    s.progress(`[ask] answered${outcome.by ? ` by ${outcome.by}` : ""}: ${outcome.answer}`);
  } else if (outcome.kind === "timeout") {
    s.system("ask.timeout", s.iteration, { question_id: questionId });
    s.progress(`[ask] no answer by ${timeoutAt}: the run goes on without one`);
  }
  return outcome.kind;
}
