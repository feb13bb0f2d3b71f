// The retries a daemon owes (`retry` of a schedule), one per slot: worked out from the ledger
// when a run ends and when the daemon starts (so a retry owed when a daemon died is found by
// the next one), and started at its time by the daemon's tick, if still owed then.
import type { Logger } from "pino";
import { formatDuration } from "../../util/duration.js";
import { isTerminal, type RunSummary, type Trigger } from "../ledger/events.js";
import type { RunLedger } from "../ledger/ledger.js";
import { owedRetry, type RetryPlan, slotAttempts, slotRoot } from "../retry/plan.js";
import type { Schedule } from "../schedules/schedule-file.js";
import { nextFireTime } from "../timing/planner.js";

/** A retry owed: the plan, and the slot and trigger of the run it retries. */
export interface OwedRetry extends RetryPlan {
  schedule: string;
  slot: Date;
  trigger: Trigger;
  /** The webhook delivery that fired the slot: its retry gets the same payload. */
  hookId?: string;
  /** The pull request a review run was for: its retry reviews the same one. */
  review?: number;
}

export interface RetryBookContext {
  ledger: Pick<RunLedger, "runIdsNewestFirst" | "summary">;
  schedule(name: string): Schedule | undefined;
  now(): number;
  log: Logger;
}

/** Runs of each schedule looked at when the daemon starts, for retries still owed. */
const START_SCAN = 10;

export class RetryBook {
  /** By slot (its first attempt's run id). */
  private readonly owed = new Map<string, OwedRetry>();

  constructor(private readonly ctx: RetryBookContext) {}

  /**
   * A run ended: when its slot is owed another attempt, the retry is noted (and returned);
   * when not, the log says why, if there is a reason worth saying.
   */
  consider(runId: string): OwedRetry | undefined {
    const run = this.ctx.ledger.summary(runId);
    if (run === undefined) return undefined;
    this.owed.delete(slotRoot(run));
    const found = this.current(run);
    if (found === undefined) return undefined;
    if ("why" in found) {
      this.ctx.log.info(
        { schedule: run.schedule, runId, status: run.status },
        `run not retried: ${found.why}`,
      );
      return undefined;
    }
    this.owed.set(slotRoot(run), found);
    const wait = Math.max(0, found.at - this.ctx.now());
    this.ctx.log.info(
      { schedule: run.schedule, runId, attempt: found.attempt, retryAt: new Date(found.at) },
      `run ended ${found.cls}: attempt ${found.attempt} starts ${wait === 0 ? "now" : `in ${formatDuration(wait)}`}`,
    );
    return found;
  }

  /** After a restart: the retries owed for the newest slots of each schedule that retries. */
  considerAll(schedules: Iterable<Schedule>): void {
    for (const schedule of schedules) {
      if (schedule.retry === undefined) continue;
      const slots = new Set<string>();
      let seen = 0;
      for (const id of this.ctx.ledger.runIdsNewestFirst(schedule.name)) {
        if (seen++ >= START_SCAN) break;
        const run = this.ctx.ledger.summary(id);
        // The newest attempt of each slot is the one a retry would follow.
        if (run === undefined || slots.has(slotRoot(run))) continue;
        slots.add(slotRoot(run));
        if (isTerminal(run.status) && run.status !== "skipped") this.consider(run.runId);
      }
    }
  }

  /** The retry owed now for the run `owed` follows, if it still is (nothing is noted). */
  recheck(owed: OwedRetry): OwedRetry | undefined {
    const run = this.ctx.ledger.summary(owed.after);
    const found = run === undefined ? undefined : this.current(run);
    return found === undefined || "why" in found || found.attempt !== owed.attempt
      ? undefined
      : found;
  }

  private current(run: RunSummary): OwedRetry | { why: string } | undefined {
    const schedule = this.ctx.schedule(run.schedule);
    if (schedule?.retry === undefined || !isTerminal(run.status)) return undefined;
    const attempts = slotAttempts(this.ctx.ledger, run);
    const next = (slot: Date) => nextFireTime(schedule, slot);
    const decision = owedRetry(schedule.retry, run, attempts, next, this.ctx.now());
    if (decision.kind === "none")
      return decision.why === undefined ? undefined : { why: decision.why };
    return {
      ...decision.plan,
      schedule: run.schedule,
      slot: new Date(run.slot),
      trigger: run.trigger ?? "cron",
      ...(run.hookId !== undefined && { hookId: run.hookId }),
      ...(run.review !== undefined && { review: run.review }),
    };
  }

  /** The retries whose time has come, taken out of the book (each is owed once). */
  due(now: number): OwedRetry[] {
    const out: OwedRetry[] = [];
    for (const [slot, owed] of this.owed)
      if (owed.at <= now) {
        this.owed.delete(slot);
        out.push(owed);
      }
    return out;
  }

  /** Puts a retry back that could not start yet (its schedule's run, max_concurrent_runs). */
  defer(owed: OwedRetry): void {
    this.owed.set(owed.parentRunId, owed);
  }

  /** The retries owed, by slot. */
  list(): OwedRetry[] {
    return [...this.owed.values()];
  }
}
