// Schedule health from the scheduler's facts: slots skipped or blocked in a row, slots missed
// while the daemon was down, schedule files that fail validation.
import type { WriteTrouble } from "../../journal/held-lines.js";
import { usd } from "../../scheduler/budget/spend.js";
import type { PauseReason } from "../../scheduler/schedules/pause-state.js";
import { type LoginRefused, loginConditions } from "./agent-logins.js";
import { raise } from "./condition-kinds.js";
import { type Condition, fingerprintOf } from "./conditions.js";
import type { BudgetFact, CostlyFact } from "./spend-facts.js";
import type { ThresholdsFor } from "./thresholds.js";

/** A slot's fate; callers leave out slots skipped on purpose (paused, disabled). */
export type SlotOutcome = "ran" | "skipped" | "blocked";

// Every time in a condition comes from the facts, never from `now`: a condition that did not
// change must serialize the same, or the alert state would be rewritten on every check.
export interface ScheduleFacts {
  /** Per schedule, its recent slots (ISO slot times), oldest first. */
  recentSlots?: readonly {
    schedule: string;
    slots: readonly { slot: string; outcome: SlotOutcome }[];
  }[];
  /**
   * Slots (ISO) missed while the daemon was down, or (`noRun`) due without a run where no
   * daemon is watching; supply them for as long as they should hold.
   */
  missed?: readonly { schedule: string; slots: readonly string[]; noRun?: boolean }[];
  /** Schedule files that failed validation: formatted problems, and since when (e.g. mtime). */
  invalidFiles?: readonly { file: string; problems: readonly string[]; since: string }[];
  /** The daemon's own writes that fail (a full disk), per writer. */
  writeTrouble?: readonly ({ what: "ledger" | "outbox" } & WriteTrouble)[];
  /** Schedules whose budget is spent for now. */
  budgets?: readonly BudgetFact[];
  /** Schedules whose latest run cost more than usual. */
  costly?: readonly CostlyFact[];
  /** Schedules the scheduler paused itself, and why. */
  paused?: readonly { schedule: string; reason: PauseReason }[];
  /** Agent logins refused by their check before a slot (`preflight`). */
  loginsRefused?: readonly LoginRefused[];
}

/** One condition per troubled schedule or bad file. */
export function scheduleConditions(facts: ScheduleFacts, thresholds: ThresholdsFor): Condition[] {
  return [
    ...(facts.recentSlots ?? []).flatMap((r) => skippedSlots(r, thresholds)),
    ...(facts.missed ?? []).flatMap(missedSlots),
    ...(facts.invalidFiles ?? []).map(invalidFile),
    ...(facts.budgets ?? []).map(budgetSpent),
    ...(facts.costly ?? []).map(costlyRun),
    ...(facts.paused ?? []).map(pausedSchedule),
    ...(facts.writeTrouble ?? []).map(unwritableState),
    ...loginConditions(facts.loginsRefused ?? []),
  ];
}

/** `schedule_trouble` (skipped): the schedule's latest slots in a row did not run. */
function skippedSlots(
  { schedule, slots: recent }: NonNullable<ScheduleFacts["recentSlots"]>[number],
  thresholds: ThresholdsFor,
): Condition[] {
  let first = recent.length;
  while (first > 0 && recent[first - 1]!.outcome !== "ran") first -= 1;
  const count = recent.length - first;
  if (count === 0 || count < thresholds(schedule).scheduleSkips) return [];
  const slots = recent.slice(first).map((s) => s.slot);
  const fingerprint = fingerprintOf("schedule_trouble", schedule, "skipped");
  const summary = `schedule ${schedule}: last ${count} slots skipped or blocked`;
  return [
    raise("schedule_trouble", {
      cause: "skipped",
      fingerprint,
      summary,
      occurredAt: slots[0]!,
      schedule,
      count,
      slots,
    }),
  ];
}

/** `schedule_trouble` (missed): slots missed while the daemon was down, or with no run. */
function missedSlots({
  schedule,
  slots,
  noRun,
}: NonNullable<ScheduleFacts["missed"]>[number]): Condition[] {
  if (slots.length === 0) return [];
  const fingerprint = fingerprintOf("schedule_trouble", schedule, "missed");
  const summary = noRun
    ? `schedule ${schedule}: no run started for its slot at ${slots[0]} (missed)`
    : `schedule ${schedule}: ${slots.length} slots missed while the daemon was down`;
  return [
    raise("schedule_trouble", {
      cause: "missed",
      fingerprint,
      summary,
      occurredAt: slots[0]!,
      schedule,
      count: slots.length,
      slots: [...slots],
    }),
  ];
}

/** `config_invalid`: a schedule file that fails validation. */
function invalidFile({
  file,
  problems,
  since,
}: NonNullable<ScheduleFacts["invalidFiles"]>[number]): Condition {
  const fingerprint = fingerprintOf("config_invalid", file);
  // As the daemon does: the file's last valid version stays in force until it is fixed.
  const summary = `schedule file ${file} is invalid; until it is fixed, the schedules of its last valid version run (none, if it was never valid since the daemon started)`;
  return raise("config_invalid", {
    file,
    problems: [...problems],
    fingerprint,
    summary,
    occurredAt: since,
  });
}

/** `budget_exhausted`: the schedule's budget for this period is spent. */
function budgetSpent(b: BudgetFact): Condition {
  return raise("budget_exhausted", {
    schedule: b.schedule,
    period: b.period,
    periodKey: b.periodKey,
    until: b.until,
    detail: b.detail,
    fingerprint: fingerprintOf("budget_exhausted", b.schedule),
    summary: `schedule ${b.schedule}: its ${b.period === "day" ? "daily" : "monthly"} budget for ${b.periodKey} is spent; its slots are skipped until ${b.until}`,
    occurredAt: b.since,
  });
}

/** `run_costly`: the schedule's latest run cost more than usual. */
function costlyRun(c: CostlyFact): Condition {
  return raise("run_costly", {
    schedule: c.schedule,
    run: c.run,
    costUsd: c.costUsd,
    medianUsd: c.medianUsd,
    factor: c.factor,
    runs: c.runs,
    fingerprint: fingerprintOf("run_costly", c.schedule),
    summary: `schedule ${c.schedule}: run ${c.run} cost ${usd(c.costUsd)}, ${(c.costUsd / c.medianUsd).toFixed(1)}x the median ${usd(c.medianUsd)} of its last ${c.runs} runs (cost_factor ${c.factor})`,
    occurredAt: c.at,
  });
}

/** `schedule_paused`: the scheduler paused the schedule after failures in a row. */
function pausedSchedule({
  schedule,
  reason,
}: NonNullable<ScheduleFacts["paused"]>[number]): Condition {
  return raise("schedule_paused", {
    schedule,
    failures: reason.failures,
    runs: [...reason.runs],
    fingerprint: fingerprintOf("schedule_paused", schedule),
    summary: `schedule ${schedule} is paused after ${reason.failures} failed runs in a row (pause_after_failures); it stays paused until resumed`,
    occurredAt: reason.at,
  });
}

/** `state_unwritable`: the daemon's ledger or outbox cannot be written. */
function unwritableState(t: NonNullable<ScheduleFacts["writeTrouble"]>[number]): Condition {
  return raise("state_unwritable", {
    what: t.what,
    path: t.path,
    error: t.error,
    waiting: t.waiting,
    fingerprint: fingerprintOf("state_unwritable", t.what),
    summary: `the ${t.what} cannot be written (${t.error}); ${t.waiting} line(s) held in memory`,
    occurredAt: t.since,
  });
}
