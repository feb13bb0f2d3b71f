// A run as its iterations, the way its page shows it: each one's role, the events it emitted,
// what the gate said, the agent's answer, its time, tokens and cost, the tasks after it and
// the questions asked. Pure: the run's journal records and tasks file entries in, data out.
// Everything here was written by the run: texts are capped, never trusted.
import type { TasksFileEntry } from "../harness/tasks/entry.js";
import { fieldNumber, fieldText, type JournalRecord } from "../journal/codec.js";
import { type OutcomeClass, stopReasonClass } from "../journal/stop-reasons.js";
import { type ClippedText, clipText, utf8Prefix } from "./clipped-text.js";
import { type TaskSnapshot, tasksByIteration } from "./tasks-by-iteration.js";

/** What became of the run after the iteration. */
export type IterationOutcome =
  | { kind: "running" }
  | { kind: "next" }
  /** Finished, and nothing after it yet (the run waits, or its harness is gone). */
  | { kind: "last" }
  | { kind: "completed"; reason: string }
  | { kind: "stopped"; reason: string; class: Exclude<OutcomeClass, "completed"> };

export type QuestionState =
  | { kind: "waiting" }
  | { kind: "answered"; answer: string; by: string; at: string }
  | { kind: "timed_out"; at: string }
  /** The run ended while it waited. */
  | { kind: "unanswered" };

export interface IterationQuestion {
  id: string;
  question: string;
  askedAt: string;
  state: QuestionState;
}

export interface IterationStep {
  /** The run the iteration belongs to: the run, or a step of its chain. */
  run: string;
  iteration: number;
  /** The roles the harness suggested (`suggested_roles`), and the event that led to them. */
  roles: string;
  after: string;
  startedAt: string;
  finishedAt?: string;
  /** The agent's time, in seconds (`elapsed_s`). */
  elapsedS?: number;
  exit?: { code: string; timedOut: boolean };
  /** Events the agent emitted, in order; `omittedEvents` past the cap. */
  events: { topic: string; payload: string; ts: string }[];
  omittedEvents: number;
  /** Completions the gate refused, each with the tasks that were open. */
  refused: { blocked: string; openTasks: string[] }[];
  /** Events the topology did not allow. */
  invalid: string[];
  /** The metareview's verdict before the iteration, when one ran. */
  review?: { verdict: string; reasoning: string };
  outcome: IterationOutcome;
  /** The agent's answer (`output`). */
  answer: ClippedText;
  /** What its agent calls used; absent when none reported usage. */
  usage?: { tokens: number; costUsd?: number; models: string[] };
  tasks?: TaskSnapshot;
  questions: IterationQuestion[];
}

export interface RunIterations {
  steps: IterationStep[];
  /** Earlier iterations not shown. */
  omitted: number;
}

/** What one run page may hold: a run of thousands of iterations still renders. */
export const ITERATION_LIMITS = {
  iterations: 100,
  eventsPerIteration: 20,
  payloadBytes: 2_000,
  answer: { lines: 8, headChars: 2_000, bytes: 8_192 },
  tasks: 50,
} as const;

const TERMINAL = new Set(["loop.complete", "loop.stop"]);

/** The state of one pass over a run's records. */
interface Fold {
  steps: Map<string, IterationStep>;
  /** Each run's latest iteration. */
  last: Map<string, IterationStep>;
  questions: Map<string, { q: IterationQuestion; run: string }>;
  /** Applied before any cut: a secret split by a cut would no longer be recognised. */
  redact: (text: string) => string;
}

function newStep(run: string, n: number, r: JournalRecord): IterationStep {
  return {
    run,
    iteration: n,
    roles: fieldText(r, "suggested_roles"),
    after: fieldText(r, "recent_event"),
    startedAt: r.ts,
    events: [],
    omittedEvents: 0,
    refused: [],
    invalid: [],
    outcome: { kind: "running" },
    answer: { head: "", rest: "", omittedBytes: 0 },
    questions: [],
  };
}

function addUsage(step: IterationStep, r: JournalRecord): void {
  const u = step.usage ?? { tokens: 0, costUsd: 0, models: [] };
  u.tokens += fieldNumber(r, "total_tokens") ?? 0;
  const cost = fieldNumber(r, "cost_usd");
  // One call without a cost makes the iteration's cost unknown, never a smaller figure.
  if (cost === undefined) delete u.costUsd;
  else if (u.costUsd !== undefined) u.costUsd += cost;
  const model = fieldText(r, "model");
  if (model !== "" && !u.models.includes(model)) u.models.push(model);
  step.usage = u;
}

function finish(f: Fold, step: IterationStep, r: JournalRecord): void {
  step.finishedAt = r.ts;
  const elapsed = fieldText(r, "elapsed_s");
  if (elapsed !== "" && Number.isFinite(Number(elapsed))) step.elapsedS = Number(elapsed);
  step.exit = { code: fieldText(r, "exit_code"), timedOut: fieldText(r, "timed_out") === "true" };
  step.answer = clipText(f.redact(fieldText(r, "output")), ITERATION_LIMITS.answer);
  step.outcome = { kind: "last" };
}

function ended(step: IterationStep, r: JournalRecord): void {
  const reason = fieldText(r, "reason");
  if (r.topic === "loop.complete") step.outcome = { kind: "completed", reason };
  else {
    const cls = stopReasonClass(reason);
    step.outcome = { kind: "stopped", reason, class: cls === "completed" ? "failed" : cls };
  }
}

const capped = (f: Fold, text: string) => utf8Prefix(f.redact(text), ITERATION_LIMITS.payloadBytes);

function asked(f: Fold, step: IterationStep, r: JournalRecord): void {
  const q: IterationQuestion = {
    id: fieldText(r, "question_id"),
    question: capped(f, fieldText(r, "question")),
    askedAt: r.ts,
    state: { kind: "waiting" },
  };
  step.questions.push(q);
  f.questions.set(q.id, { q, run: step.run });
}

function settled(f: Fold, r: JournalRecord): void {
  const found = f.questions.get(fieldText(r, "question_id"));
  if (found === undefined) return;
  found.q.state =
    r.topic === "ask.timeout"
      ? { kind: "timed_out", at: r.ts }
      : {
          kind: "answered",
          answer: capped(f, fieldText(r, "answer")),
          by: fieldText(r, "answered_by"),
          at: r.ts,
        };
}

function emitted(f: Fold, step: IterationStep, r: JournalRecord & { shape: "agent" }): void {
  if (step.events.length >= ITERATION_LIMITS.eventsPerIteration) step.omittedEvents += 1;
  else step.events.push({ topic: r.topic, payload: capped(f, r.payload), ts: r.ts });
}

function started(f: Fold, r: JournalRecord, n: number): void {
  const prev = f.last.get(r.run);
  if (prev !== undefined && prev.outcome.kind !== "completed" && prev.outcome.kind !== "stopped")
    prev.outcome = { kind: "next" };
  const step = newStep(r.run, n, r);
  f.steps.set(`${r.run}\u0000${n}`, step);
  f.last.set(r.run, step);
}

/** Folds one record into the steps; the run's records come in journal order. */
function fold(f: Fold, r: JournalRecord): void {
  const n = Number(r.iteration ?? "");
  if (r.topic === "iteration.start" && n >= 1) {
    started(f, r, n);
    return;
  }
  if (r.topic === "ask.answered" || r.topic === "ask.timeout") {
    settled(f, r);
    return;
  }
  // A terminal record without an iteration (a stop before the next one) ends the last one.
  const step =
    f.steps.get(`${r.run}\u0000${n}`) ?? (TERMINAL.has(r.topic) ? f.last.get(r.run) : undefined);
  if (step === undefined) return;
  if (r.shape === "agent") {
    // Guidance and the harness's own notes share the payload shape; they are not emits.
    if (r.source !== "operator" && r.source !== "harness") emitted(f, step, r);
  } else if (r.topic === "iteration.finish") finish(f, step, r);
  else if (r.topic === "backend.usage") addUsage(step, r);
  else if (r.topic === "task.gate")
    step.refused.push({
      blocked: fieldText(r, "blocked_topic"),
      openTasks: fieldText(r, "open_tasks").split(",").filter(Boolean),
    });
  else if (r.topic === "event.invalid") step.invalid.push(fieldText(r, "emitted"));
  else if (r.topic === "review.verdict")
    step.review = {
      verdict: fieldText(r, "verdict"),
      reasoning: capped(f, fieldText(r, "reasoning")),
    };
  else if (r.topic === "ask.pending") asked(f, step, r);
  else if (TERMINAL.has(r.topic)) ended(step, r);
}

/**
 * The iterations of run `runId` (a chain's steps' in turn), the last
 * `ITERATION_LIMITS.iterations` of them, with the tasks after each when the run has a tasks
 * file (its own iterations only: a chain's steps keep theirs elsewhere).
 */
export function runIterations(
  runId: string,
  records: readonly JournalRecord[],
  options: { taskEntries?: readonly TasksFileEntry[]; redact?: (text: string) => string } = {},
): RunIterations {
  const f: Fold = {
    steps: new Map(),
    last: new Map(),
    questions: new Map(),
    redact: options.redact ?? ((text) => text),
  };
  for (const r of records) fold(f, r);
  for (const { q, run } of f.questions.values()) {
    const over = f.last.get(run)?.outcome.kind;
    if (q.state.kind === "waiting" && (over === "completed" || over === "stopped"))
      q.state = { kind: "unanswered" };
  }
  const all = [...f.steps.values()];
  const own = all.filter((s) => s.run === runId);
  const entries = options.taskEntries ?? [];
  if (entries.length > 0) {
    const snapshots = tasksByIteration(
      entries,
      own.map((s) => s.finishedAt),
      ITERATION_LIMITS.tasks,
    );
    own.forEach((s, i) => {
      s.tasks = snapshots[i];
    });
  }
  const shown = all.slice(-ITERATION_LIMITS.iterations);
  return { steps: shown, omitted: all.length - shown.length };
}
