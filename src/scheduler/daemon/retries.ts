// The retries a daemon owes (`retry` of a schedule): worked out from each schedule's newest run
// in the ledger when a run ends and when the daemon starts, so a retry owed when a daemon died
// is found by the next one, and started at its time by the daemon's tick.
import type { Logger } from "pino";
import { formatDuration } from "../../util/duration.js";
import type { RunSummary, Trigger } from "../ledger/events.js";
import type { RunLedger } from "../ledger/ledger.js";
import { type RetryDecision, type RetryPlan, retryDecision } from "../retry/plan.js";
import type { Schedule } from "../schedules/schedule-file.js";
import { nextFireTime } from "../timing/planner.js";

/** A retry owed: the plan, and the slot and trigger of the run it retries. */
export interface OwedRetry extends RetryPlan {
  schedule: string;
  slot: Date;
  trigger: Trigger;
  /** The webhook delivery that fired the slot: its retry gets the same payload. */
  hookId?: string;
}

export interface RetryBookContext {
  ledger: Pick<RunLedger, "latestRun">;
  schedule(name: string): Schedule | undefined;
  log: Logger;
}

export class RetryBook {
  private readonly owed = new Map<string, OwedRetry>();

  constructor(private readonly ctx: RetryBookContext) {}

  /**
   * Looks at the schedule's newest run again: when it is a failed attempt its policy retries,
   * the retry is owed from now on (and returned); otherwise nothing is owed for the schedule.
   */
  consider(name: string): OwedRetry | undefined {
    this.owed.delete(name);
    const found = this.current(name);
    if (found === undefined) return undefined;
    const { run, decision } = found;
    if (decision.kind === "none") {
      if (decision.why !== undefined)
        this.ctx.log.info(
          { schedule: name, runId: run.runId, status: run.status },
          `run not retried: ${decision.why}`,
        );
      return undefined;
    }
    const owed = this.owedOf(name, run, decision.plan);
    this.owed.set(name, owed);
    const wait = Math.max(0, owed.at - Date.parse(run.finishedAt!));
    this.ctx.log.info(
      { schedule: name, runId: run.runId, attempt: owed.attempt, retryAt: new Date(owed.at) },
      `run ended ${owed.cls}: attempt ${owed.attempt} starts ${wait === 0 ? "now" : `in ${formatDuration(wait)}`}`,
    );
    return owed;
  }

  /** The retry the schedule's newest run calls for now, without noting it. */
  recheck(name: string): OwedRetry | undefined {
    const found = this.current(name);
    return found?.decision.kind === "retry"
      ? this.owedOf(name, found.run, found.decision.plan)
      : undefined;
  }

  private current(name: string): { run: RunSummary; decision: RetryDecision } | undefined {
    const schedule = this.ctx.schedule(name);
    if (schedule?.retry === undefined) return undefined;
    const run = this.ctx.ledger.latestRun(name);
    if (run === undefined || run.status === "skipped") return undefined;
    const decision = retryDecision(schedule.retry, run, (slot) => nextFireTime(schedule, slot));
    return { run, decision };
  }

  private owedOf(name: string, run: RunSummary, plan: RetryPlan): OwedRetry {
    const hook = run.hookId === undefined ? {} : { hookId: run.hookId };
    return {
      ...plan,
      schedule: name,
      slot: new Date(run.slot),
      trigger: run.trigger ?? "cron",
      ...hook,
    };
  }

  /** The retries whose time has come, taken out of the book (each is owed once). */
  due(now: number): OwedRetry[] {
    const out: OwedRetry[] = [];
    for (const [name, owed] of this.owed)
      if (owed.at <= now) {
        this.owed.delete(name);
        out.push(owed);
      }
    return out;
  }

  /** Puts a retry back that could not start yet (its schedule's run, max_concurrent_runs). */
  defer(owed: OwedRetry): void {
    this.owed.set(owed.schedule, owed);
  }

  /** The retry owed for a schedule, if one is (`status`). */
  of(name: string): OwedRetry | undefined {
    return this.owed.get(name);
  }
}
