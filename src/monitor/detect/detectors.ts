// Pure detection: run states plus the caller's facts (process alive, schedule, scheduler
// verdicts, schedule health) at `now` in, the conditions that hold right now out.
import { join } from "node:path";
import { blockingTasks } from "../../harness/tasks/materialize.js";
import { TaskStore } from "../../harness/tasks/store.js";
import { fileSignature } from "../../util/file-signature.js";
import { LruMap } from "../../util/lru-map.js";
import { raise } from "./condition-kinds.js";
import { type Condition, fingerprintOf } from "./conditions.js";
import type { RetryFact } from "./retry-facts.js";
import type { RunState } from "./run-state.js";
import { type ScheduleFacts, scheduleConditions } from "./schedule-trouble.js";
import type { Thresholds, ThresholdsFor } from "./thresholds.js";

export type { ScheduleFacts, SlotOutcome } from "./schedule-trouble.js";

/** How the scheduler itself ended a run, when it did (from its ledger). */
export type SchedulerVerdict =
  | { kind: "timed_out" }
  /** By an operator, `overlap = replace` or shutdown: intended, so never an alert. */
  | { kind: "killed"; by: string };

export interface RunFacts {
  /** From the registry pid beside the journal; undefined when unknown. */
  alive?: boolean;
  /** The schedule that launched the run; undefined for journals not tied to one. */
  schedule?: string;
  verdict?: SchedulerVerdict;
  /** The run has a terminal record, yet its harness still runs: not its end (yet). */
  unconfirmedEnd?: boolean;
  /** It ended badly on a schedule that retries: its attempt, and whether another is coming. */
  retry?: RetryFact;
}

/**
 * How long a run's journal may say it ended before the ledger does, while its schedule's
 * retry policy waits for the ledger to tell whether the slot gets another attempt.
 */
export const RETRY_SETTLE_MS = 60_000;

/**
 * A run end that pages nobody: `page = "last"`, and a later attempt of its slot is owed or
 * under way (or the ledger is about to say whether one is).
 */
function heldForRetry(retry: RetryFact | undefined, endedAt: string, now: number): boolean {
  if (retry === undefined || retry.page !== "last") return false;
  const since = retry.unsettledSince ?? ms(endedAt);
  return retry.retried || (retry.unsettled && now - since < RETRY_SETTLE_MS);
}

/** The end condition with its slot's attempts, on a schedule that retries. */
export function withRetry<C extends Condition>(c: C, retry: RetryFact | undefined): C {
  if (retry === undefined) return c;
  const { attempt, of, nextAt, attempts } = retry;
  return { ...c, retry: { attempt, of, attempts, ...(nextAt !== undefined && { nextAt }) } };
}

export interface DetectFacts {
  /** Keyed by run id; a run missing here has all facts unknown. */
  runs: ReadonlyMap<string, RunFacts>;
  schedules?: ScheduleFacts;
}

export interface OpenTask {
  id: string;
  text: string;
}

export interface DetectDeps {
  /** The run's blocking open tasks; undefined when unknown (no work dir, unreadable file). */
  tasksOf: (run: RunState) => OpenTask[] | undefined;
}

/** The default `tasksOf`: `<work_dir>/.autoloop/runs/<run-id>/tasks.jsonl` (docs/formats.md). */
export function readRunTasks(run: RunState): OpenTask[] | undefined {
  if (run.workDir === undefined) return undefined;
  try {
    const file = join(run.workDir, ".autoloop", "runs", run.run, "tasks.jsonl");
    // No file is not "no open tasks": the gate refused, so the tasks live somewhere we cannot
    // see (AUTOLOOP_TASKS_FILE, another host's path). Unknown, which never hides the alert.
    const signature = fileSignature(file);
    if (signature === undefined) return undefined;
    const known = tasksRead.get(file);
    const tasks =
      known?.signature === signature
        ? known.tasks
        : blockingTasks(new TaskStore(file).view()).map((t) => ({ id: t.id, text: t.text }));
    if (known?.tasks !== tasks) tasksRead.set(file, { signature, tasks });
    return tasks;
  } catch {
    return undefined;
  }
}

/**
 * Tasks files read lately, by path with their stat signature: a run's file is read again only
 * once it changed (each read parses every entry; a gate's alert waited for it).
 */
const tasksRead = new LruMap<string, { signature: string; tasks: OpenTask[] }>(1024);

const ms = (iso: string) => Date.parse(iso);

/** What every condition of a run carries. */
type Base = { run: string; journalPath: string; schedule?: string };

/**
 * Terminal runs: completed and operator-stopped (`interrupted`, a `killed` verdict) runs are
 * resolved; failed-class reasons are `run_failed` (critical). Stopped-class reasons
 * (max_iterations, stalled, max_runtime, rate_limited, transient_error) are `run_failed`
 * with outcome "stopped" and severity warning: the objective was not met and nobody else
 * will notice; critical when the run ended with its gate still refusing, as that is a
 * stuck gate the loop gave up on.
 */
function terminalCondition(run: RunState, base: Base): Condition | undefined {
  const t = run.terminal!;
  if (t.topic === "loop.complete" || t.class === "interrupted" || t.class === "completed") return;
  const refusals = run.gate?.episodeRefusals ?? 0;
  const outcome = t.class === "failed" ? "failed" : "stopped";
  return raise("run_failed", {
    ...base,
    fingerprint: fingerprintOf("run_failed", run.run),
    summary: `run ${run.run} ${outcome}: ${t.reason}`,
    occurredAt: t.at,
    reason: t.reason,
    outcome,
    ...(t.detail !== undefined && { detail: t.detail }),
    ...(refusals > 0 && { gateRefusals: refusals }),
  });
}

/**
 * The gate is stuck after `gateRejections` refusals in a row without progress, or when the
 * first refusal since a task was last completed is older than `gateGraceMs`. The tasks file
 * overrides both: an id of the latest refusal no longer open means the agent got on with it.
 */
function gateCondition(
  run: RunState,
  base: Base,
  now: number,
  th: Thresholds,
  deps: DetectDeps,
): Condition | undefined {
  const gate = run.gate;
  if (gate === undefined) return;
  const byCount = gate.refusals >= th.gateRejections && gate.streakSince !== undefined;
  const byGrace = now - ms(gate.episodeSince) >= th.gateGraceMs;
  if (!byCount && !byGrace) return;
  const open = deps.tasksOf(run);
  if (open !== undefined && gate.openTaskIds.some((id) => !open.some((t) => t.id === id))) return;
  const text = (id: string) => open?.find((t) => t.id === id)?.text ?? "";
  const since = byCount ? gate.streakSince! : gate.episodeSince;
  const refusals = byCount ? gate.refusals : gate.episodeRefusals;
  const c = raise("gate_stuck", {
    ...base,
    fingerprint: fingerprintOf("gate_stuck", run.run, gate.blockedTopic),
    summary: `run ${run.run}: completion gate refused ${gate.blockedTopic} ${refusals} times`,
    occurredAt: since,
    gate: {
      topic: gate.blockedTopic,
      openTasks: gate.openTaskIds.map((id) => ({ id, text: text(id) })),
      refusals,
      since,
      trigger: byCount ? "count" : "grace",
    },
  });
  if (gate.via !== undefined) c.gate.via = gate.via;
  return c;
}

/** Conditions of one run. A run's own end (or crash) suppresses its gate and stall ones. */
function runConditions(
  run: RunState,
  facts: RunFacts,
  now: number,
  th: Thresholds,
  deps: DetectDeps,
): Condition[] {
  const base: Base = { run: run.run, journalPath: run.journalPath };
  if (facts.schedule !== undefined) base.schedule = facts.schedule;
  if (facts.verdict?.kind === "killed") return [];
  const retry = facts.retry;
  if (facts.verdict?.kind === "timed_out") {
    if (heldForRetry(retry, run.lastRecordAt, now)) return [];
    const summary = `run ${run.run} timed out and was killed by the scheduler`;
    const fingerprint = fingerprintOf("run_timed_out", run.run);
    const occurredAt = run.lastRecordAt;
    return [
      withRetry(raise("run_timed_out", { ...base, fingerprint, summary, occurredAt }), retry),
    ];
  }
  // A terminal record while the harness still runs is not the harness's: the run goes on.
  if (run.terminal !== undefined && facts.unconfirmedEnd !== true) {
    if (run.chainStep === true) return []; // its chain's end says it, once
    if (heldForRetry(retry, run.terminal.at, now)) return [];
    const c = terminalCondition(run, base);
    return c === undefined ? [] : [withRetry(c, retry)];
  }
  const idleMs = now - ms(run.lastRecordAt);
  if (facts.alive === false) {
    if (!(idleMs >= th.crashGraceMs) || heldForRetry(retry, run.lastRecordAt, now)) return [];
    const summary = `run ${run.run} crashed: harness gone without a terminal record`;
    const fp = fingerprintOf("run_crashed", run.run);
    const lastRecordAt = run.lastRecordAt;
    const at = { occurredAt: lastRecordAt, lastRecordAt };
    const c = raise("run_crashed", { ...base, ...at, fingerprint: fp, summary });
    return [withRetry(c, retry)];
  }
  const out: Condition[] = [];
  const gate = gateCondition(run, base, now, th, deps);
  if (gate !== undefined) out.push(gate);
  if (run.question !== undefined) {
    // A run waiting for a human writes nothing while it waits: that is no stall.
    const q = run.question;
    out.push(
      raise("question_pending", {
        ...base,
        fingerprint: fingerprintOf("question_pending", run.run, q.id),
        summary: `run ${run.run} waits for a human's answer: ${q.text.split("\n", 1)[0]}`,
        occurredAt: q.askedAt,
        questionId: q.id,
        question: q.text,
        askedAt: q.askedAt,
        ...(q.timeoutAt !== undefined && { timeoutAt: q.timeoutAt }),
      }),
    );
    return out;
  }
  if (facts.alive === true && idleMs >= th.stallAfterMs) {
    out.push(
      raise("run_stalled", {
        ...base,
        fingerprint: fingerprintOf("run_stalled", run.run),
        summary: `run ${run.run}: no journal record since ${run.lastRecordAt}, harness alive`,
        occurredAt: run.lastRecordAt,
        lastRecordAt: run.lastRecordAt,
      }),
    );
  }
  return out;
}

/** The conditions of one run that hold at `now` (`detect` without the schedule ones). */
export function detectRun(
  run: RunState,
  facts: DetectFacts,
  now: Date,
  thresholds: ThresholdsFor,
  deps: DetectDeps,
): Condition[] {
  const f = facts.runs.get(run.run) ?? {};
  return runConditions(run, f, now.getTime(), thresholds(f.schedule), deps);
}

/** Every condition that holds at `now`, runs first, in a stable order. */
export function detect(
  runs: Iterable<RunState>,
  facts: DetectFacts,
  now: Date,
  thresholds: ThresholdsFor,
  deps: DetectDeps,
): Condition[] {
  const out: Condition[] = [];
  for (const run of runs) out.push(...detectRun(run, facts, now, thresholds, deps));
  out.push(...scheduleConditions(facts.schedules ?? {}, thresholds));
  return out;
}
