// One admission path for a due slot, shared by the daemon and `fire` (the path Kubernetes
// CronJobs and systemd timers take): the facts a slot is decided on, the decision, and how a
// skip is recorded, so both schedulers skip, queue and replace by the same rules.

import type { SpendLedger } from "../budget/spend.js";
import { type BudgetStanding, budgetStanding } from "../budget/standing.js";
import type { RunCeiling } from "../launch/spec.js";
import type { SkipCause, Trigger } from "../ledger/events.js";
import type { RunLedger } from "../ledger/ledger.js";
import { isPaused, type PauseState } from "../schedules/pause-state.js";
import type { Schedule } from "../schedules/schedule-file.js";
import {
  decideSlot,
  type SkipCause as PolicySkipCause,
  type SlotDecision,
  type SlotFacts,
} from "./policy.js";

export interface AdmissionState {
  pause: PauseState;
  killSwitch: boolean;
  /** Run ids of this schedule's runs still running. */
  running: readonly string[];
  runningTotal: number;
  maxConcurrent: number;
  ledger: Pick<RunLedger, "latestRun"> & SpendLedger;
  /** Epoch ms: the budget's day and month are those of now. */
  now: number;
  /** Ceilings of this schedule's launches decided and not yet claimed (see budgetStanding). */
  unclaimed?: readonly RunCeiling[];
}

/**
 * A slot's decision and its schedule's budget standing, taken once: a launch takes its
 * ceiling from it (undefined: the schedule has no budget).
 */
export interface Admission {
  decision: SlotDecision;
  standing: BudgetStanding | undefined;
}

const NO_AFTER: SlotFacts["after"] = [];

/** The policy's decision for a slot of `schedule`, as things stand. */
export function admitSlot(schedule: Schedule, state: AdmissionState): Admission {
  const name = schedule.name;
  const unclaimed = state.unclaimed ?? [];
  const budget = budgetStanding(schedule, state.ledger, state.now, { unclaimed });
  const decision = decideSlot({
    schedule: name,
    overlap: schedule.overlap,
    enabled: schedule.enabled,
    paused: isPaused(state.pause, name),
    globallyPaused: state.pause.all || state.killSwitch,
    running: state.running,
    runningTotal: state.runningTotal,
    maxConcurrent: state.maxConcurrent,
    after:
      schedule.after.length === 0
        ? NO_AFTER
        : schedule.after.map((a) => ({
            schedule: a,
            latestStatus: state.ledger.latestRun(a)?.status,
          })),
    ...(budget?.kind === "exhausted" && { budgetExhausted: budget.detail }),
  });
  return { decision, standing: budget };
}

/** The ledger's word for a policy skip. */
export function ledgerCause(cause: PolicySkipCause): SkipCause {
  return cause === "globally_paused" ? "paused" : cause;
}

export interface SkipRecord {
  runId: string;
  schedule: string;
  slot: Date;
  trigger: Trigger;
  cause: SkipCause;
  detail: string;
  /** A retry that will not run: its attempt's key is taken, so it is never tried again. */
  attempt?: number;
  parentRunId?: string;
  /** The key it claims instead of the slot's (see SlotRun.key). */
  key?: string;
}

/** Records a skipped slot in the ledger (one `skipped` event under its own run id). */
export function recordSkip(ledger: Pick<RunLedger, "skip">, skip: SkipRecord): void {
  const { runId, schedule, slot, trigger, cause, detail, attempt, key, parentRunId } = skip;
  const claim = { ...(attempt && { attempt, parentRunId }), ...(key && { key }) };
  ledger.skip({ runId, schedule, slot, trigger, cause, detail, ...claim });
}
