// Run-ledger events (one JSONL line per state change, docs/formats.md) and the pure replay into a run summary.
import { RUN_STATUSES, type RunKind, type SpendBasis, type TerminalStatus } from "./run-outcome.js";

export type { RunKind } from "./run-outcome.js";

export type Trigger = "cron" | "manual" | "catch_up" | "hook";
export type SkipCause =
  | "overlap"
  | "paused"
  | "blocked_by_after"
  | "max_concurrent"
  | "disabled"
  | "config_error"
  | "budget_exhausted"
  /** A schedule with a `source` found no issue ready to take: nothing to do, no trouble. */
  | "no_issue"
  /** Its tracker could not be read or marked (a token refused, the service down). */
  | "tracker_error"
  /** An orphaned claim's slot (its claimer died) that the schedule's `catch_up` does not run. */
  | "catch_up";

interface Base {
  /** ISO-8601 UTC time the event was written. */
  ts: string;
  runId: string;
}

export interface ScheduledEvent extends Base {
  event: "scheduled";
  schedule: string;
  /** ISO instant of the slot. */
  slot: string;
  /** Idempotency key `<schedule>@<slot ISO>`. */
  key: string;
  trigger: Trigger;
  kind: RunKind;
  argv: string[];
  cwd: string;
  timeoutMs?: number;
  /** The ceiling the schedule's budget put on the run (`--budget-usd`, `--budget-tokens`). */
  budgetUsd?: number;
  budgetTokens?: number;
  /** A retry (`retry`): which attempt of the slot it is (2 and up; absent: the first). */
  attempt?: number;
  /** A retry's first attempt, the run every attempt of the slot names as its parent. */
  parentRunId?: string;
  /** The webhook delivery that fired it (trigger "hook"), its retries too. */
  hookId?: string;
  /** The pull request a review run is for (`deliver.review`), its retries too. */
  review?: number;
}

export interface StartedEvent extends Base {
  event: "started";
  pid: number;
  pgid: number;
  startTime?: string;
  /** The launcher's host name: another host's process says nothing on this one (pods). */
  host?: string;
  outputPath: string;
  journalPath: string;
  journalOffset: number;
  /**
   * The remote's branch (and commit) the daemon fetched and the run's worktree started from:
   * the daemon's own record of a run's base, where the run's worktree metadata is the run's.
   */
  from?: { branch: string; commit: string };
  /** The pull request a review run checked out and reviews (`deliver.review`). */
  review?: number;
}

export interface FinishedEvent extends Base {
  event: "finished";
  status: TerminalStatus;
  basis: string;
  stopReason?: string;
  exitCode?: number;
  signal?: string;
  durationMs: number;
  detail?: string;
  /** What the run spent: known cost, tokens, iterations of unknown cost. */
  costUsd?: number;
  tokens?: number;
  unpricedIterations?: number;
  /** Where the spend came from: `harness` (its `end.json`) or `journal` (the run's own file). */
  spendBasis?: SpendBasis;
  /** When its agent said to try again (`retry_after` of a rate-limited stop), as an ISO time. */
  retryAfter?: string;
}

export interface KilledEvent extends Base {
  event: "killed";
  /** `operator`, `timeout`, `replace` (overlap = replace), `shutdown`... */
  by: string;
  reason: string;
}

export interface SkippedEvent extends Base {
  event: "skipped";
  schedule: string;
  slot: string;
  key: string;
  trigger: Trigger;
  cause: SkipCause;
  detail?: string;
  /** A retry that was skipped: its attempt and the slot's first run. */
  attempt?: number;
  parentRunId?: string;
}

export interface AdoptedEvent extends Base {
  event: "adopted";
  pid: number;
}

export interface InterruptedEvent extends Base {
  event: "interrupted";
  reason: string;
  /** Set when no `scheduled` event was written (the daemon died right after the claim). */
  schedule?: string;
  slot?: string;
  attempt?: number;
  parentRunId?: string;
}

/** The run's commits went out as its schedule's pull request (after its `finished`). */
export interface DeliveredEvent extends Base {
  event: "delivered";
  /** The pull request (GitLab: merge request) opened or updated. */
  url: string;
  action: "opened" | "updated";
}

export type LedgerEvent =
  | ScheduledEvent
  | DeliveredEvent
  | StartedEvent
  | FinishedEvent
  | KilledEvent
  | SkippedEvent
  | AdoptedEvent
  | InterruptedEvent;

/** Distributes Omit over the union, so each event keeps its own fields. */
export type LedgerEventInput = LedgerEvent extends infer E
  ? E extends LedgerEvent
    ? Omit<E, "ts" | "runId">
    : never
  : never;

/** Every status `runs` can show: a run's, or a skipped slot's. */
export const SUMMARY_STATUSES = [...RUN_STATUSES, "skipped"] as const;

export type SummaryStatus = (typeof SUMMARY_STATUSES)[number];

/** What `runs` lists: the state of one run after replaying its events. */
export interface RunSummary {
  runId: string;
  schedule: string;
  slot: string;
  trigger?: Trigger;
  status: SummaryStatus;
  scheduledAt?: string;
  startedAt?: string;
  finishedAt?: string;
  pid?: number;
  stopReason?: string;
  exitCode?: number;
  signal?: string;
  durationMs?: number;
  skipCause?: SkipCause;
  killedBy?: string;
  detail?: string;
  /** What the terminal status was decided from (`journal`, `exit`, `spawn`, `lost`...). */
  basis?: string;
  /** What the run spent, when its terminal record said (absent: unknown). */
  costUsd?: number;
  tokens?: number;
  unpricedIterations?: number;
  /** Where the spend came from; a `journal` figure is a claim of the run's (budgets: spend.ts). */
  spendBasis?: SpendBasis;
  /** The ceiling its schedule's budget put on it: what a running run may still spend. */
  budgetUsd?: number;
  budgetTokens?: number;
  /** A retry's attempt of its slot (2 and up) and the slot's first run. */
  attempt?: number;
  parentRunId?: string;
  /** The webhook delivery that fired it. */
  hookId?: string;
  /** The pull request a review run is for. */
  review?: number;
  /** When its agent said to try again (a rate-limited end). */
  retryAfter?: string;
  /** The pull request its commits went to (`deliver`). */
  pullRequest?: string;
}

const TERMINAL: ReadonlySet<SummaryStatus> = new Set([
  "completed",
  "failed",
  "killed",
  "timed_out",
  "interrupted",
  "skipped",
]);

export function isTerminal(status: SummaryStatus): boolean {
  return TERMINAL.has(status);
}

/** Applies one event to a summary (pure); `undefined` starts a new one. */
export function applyEvent(summary: RunSummary | undefined, e: LedgerEvent): RunSummary {
  const s: RunSummary = summary ?? { runId: e.runId, schedule: "", slot: "", status: "pending" };
  switch (e.event) {
    case "scheduled":
      return {
        ...s,
        schedule: e.schedule,
        slot: e.slot,
        trigger: e.trigger,
        scheduledAt: e.ts,
        ...(e.budgetUsd !== undefined && { budgetUsd: e.budgetUsd }),
        ...(e.budgetTokens !== undefined && { budgetTokens: e.budgetTokens }),
        ...(e.attempt !== undefined && { attempt: e.attempt }),
        ...(e.parentRunId !== undefined && { parentRunId: e.parentRunId }),
        ...(e.hookId !== undefined && { hookId: e.hookId }),
        ...(Number.isSafeInteger(e.review) && { review: e.review }),
      };
    case "skipped":
      return {
        ...s,
        schedule: e.schedule,
        slot: e.slot,
        trigger: e.trigger,
        status: "skipped",
        skipCause: e.cause,
        finishedAt: e.ts,
        ...(e.detail ? { detail: e.detail } : {}),
        ...(e.attempt !== undefined && { attempt: e.attempt }),
        ...(e.parentRunId !== undefined && { parentRunId: e.parentRunId }),
      };
    case "started":
      return { ...s, status: "running", pid: e.pid, startedAt: e.ts };
    case "adopted":
      return { ...s, status: isTerminal(s.status) ? s.status : "running", pid: e.pid };
    case "killed":
      return { ...s, killedBy: e.by };
    case "delivered":
      return { ...s, pullRequest: e.url };
    case "interrupted":
      return {
        ...s,
        ...(e.schedule !== undefined && s.schedule === "" && { schedule: e.schedule }),
        ...(e.slot !== undefined && s.slot === "" && { slot: e.slot }),
        ...(e.attempt !== undefined && s.attempt === undefined && { attempt: e.attempt }),
        ...(e.parentRunId !== undefined &&
          s.parentRunId === undefined && { parentRunId: e.parentRunId }),
        status: "interrupted",
        detail: e.reason,
        finishedAt: e.ts,
      };
    case "finished": {
      const { stopReason, exitCode, signal, detail, costUsd, tokens, unpricedIterations } = e;
      const { retryAfter, spendBasis } = e;
      return {
        ...s,
        status: e.status,
        basis: e.basis,
        durationMs: e.durationMs,
        finishedAt: e.ts,
        ...(stopReason !== undefined && { stopReason }),
        ...(exitCode !== undefined && { exitCode }),
        ...(signal !== undefined && { signal }),
        ...(detail !== undefined && { detail }),
        ...(costUsd !== undefined && { costUsd }),
        ...(tokens !== undefined && { tokens }),
        ...(unpricedIterations !== undefined && unpricedIterations > 0 && { unpricedIterations }),
        ...(spendBasis !== undefined && { spendBasis }),
        ...(retryAfter !== undefined && { retryAfter }),
      };
    }
  }
}

/** Replays events in order into a summary; undefined for an empty log. */
export function summarize(events: readonly LedgerEvent[]): RunSummary | undefined {
  let summary: RunSummary | undefined;
  for (const e of events) summary = applyEvent(summary, e);
  return summary;
}

/** Parses one ledger line; undefined for a torn or foreign line (the reader counts those). */
export function decodeLedgerEvent(line: string): LedgerEvent | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== "object" || value === null) return undefined;
    const v = value as Partial<LedgerEvent>;
    return typeof v.event === "string" && typeof v.runId === "string"
      ? (v as LedgerEvent)
      : undefined;
  } catch {
    return undefined;
  }
}
