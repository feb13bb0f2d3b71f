// Every kind of condition the monitor reports, defined once: the words on-call reads for it,
// how its runs group, its severity and paging severity, and how its alert ends. TypeScript
// refuses a `Condition` kind without an entry, and an entry without a field. The detectors
// that raise each kind are in detectors.ts (runs), schedule-trouble.ts (schedules, files) and
// facts.ts (the daemon's own writes); compose-alert.ts, status.ts, evaluation.ts and the
// channels (through alerts/alert-kinds.ts) speak from here.
import type { Condition, ConditionKind, GateDetails, Severity } from "./conditions.js";
import type { RunState } from "./run-state.js";

type Of<K extends ConditionKind> = Extract<Condition, { kind: K }>;

/**
 * How an alert that stopped holding ends: `resolve` at once (the schedule recovered, the run
 * ended: a fact, not a flap), or `expire` (nothing got better, the monitor just stopped
 * tracking it: no all-clear, a note on the incident). Undefined: the settle period decides.
 */
export type Ending = { kind: "resolve"; note: string } | { kind: "expire"; note: string };

/** What a kind's ending is decided from (the monitor's view of runs, schedules, ledger). */
export interface EndingFacts {
  /** Whether the schedule files were read: conditions that hold by them end only after. */
  schedulesLoaded(): boolean;
  /** A tracked run, and whether its end is proven its harness's. */
  run(id: string): { state: RunState | undefined; ended: boolean };
  /** The schedule's latest run in the ledger, when one is open. */
  latestRun(schedule: string): { slot: string; runId: string } | undefined;
}

/** The words for a schedule's runs that end one way, grouped into one alert. */
export interface RunGroupWords<K extends ConditionKind = ConditionKind> {
  /** "runs fail": in "Schedule nightly: runs fail" and `status`. */
  title: string;
  /** One run of the group, live or ended: "run X is stuck at its completion gate". */
  one: string;
  /** Ended runs: "3 runs stopped at the completion gate". */
  many: string;
  /** The incident's changelog line for one run; its summary (and attempt) when absent. */
  note?(c: Of<K>): string;
}

export interface ConditionKindDefinition<K extends ConditionKind> {
  /** The kind in alert subjects and facts ("gate stuck"). */
  label: string;
  /** Set for kinds about one run: a schedule's runs of this kind are one alert. */
  runGroup: RunGroupWords<K> | undefined;
  /** The run is still running while this holds (the alert offers to stop it). */
  live: boolean;
  /** The level detection gives a condition of this kind. */
  severity(c: Omit<Of<K>, "severity">): Severity;
  /** PagerDuty's severity (Opsgenie's P1 or P3) for an alert of this kind, whatever its level. */
  paging: Severity;
  /** The alert's title for one condition of this kind. */
  title(c: Of<K>): string;
  /** What the alert says below its summary, when there is more. */
  detail(c: Of<K>): string | undefined;
  /** What the incident is named after, following its kind: a run, a schedule, a file. */
  subject(c: Of<K>): string;
  /**
   * How its firing alert ends once the condition stopped holding, when a fact of the kind
   * says (a schedule's group ends by a completed run, a run's by its end: evaluation.ts).
   */
  ending(c: Of<K>, facts: EndingFacts): Ending | undefined;
  /** The completion gate the run is stuck at (the alert's gate facts and task command). */
  gate?(c: Of<K>): GateDetails;
  /** The id of the question the run waits on (the alert says how to answer it). */
  question?(c: Of<K>): string;
}

/** The first line of a text, at most 120 characters. */
function oneLine(text: string): string {
  const line = text.split("\n", 1)[0]!.trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** `<schedule> <run>`, the schedule said once when the run id begins with it. */
function runSubject(c: { schedule?: string; run: string }): string {
  const schedule = c.schedule && c.run.startsWith(`${c.schedule}-`) ? undefined : c.schedule;
  return [schedule, c.run].filter((s) => s !== undefined && s !== "").join(" ");
}

const critical = (): Severity => "critical";
const warning = (): Severity => "warning";
/** Kinds whose alert ends by its group (evaluation.ts), or settles as any other. */
const byGroup = (): undefined => undefined;
const resolve = (note: string): Ending => ({ kind: "resolve", note });

/**
 * How a question's page ends: answered (by whom, what), timed out, or the run ended. Nothing
 * proven (a monitor that has not read the run yet, after a restart): it settles as any other.
 */
function questionEnding(c: Of<"question_pending">, facts: EndingFacts): Ending | undefined {
  const { state, ended } = facts.run(c.run);
  const a = state?.answer;
  if (a?.id === c.questionId && a.how === "answered")
    return resolve(`answered${a.by ? ` by ${a.by}` : ""}: ${JSON.stringify(a.text ?? "")}`);
  if (a?.id === c.questionId)
    return resolve(`no answer by ${c.timeoutAt ?? a.at}; the run went on without one`);
  if (ended) return resolve(`run ${c.run} ended without an answer`);
  return undefined;
}

/** A missed slot's alert ends when the ledger shows a run for it. */
function missedEnding(c: Of<"schedule_trouble">, facts: EndingFacts): Ending | undefined {
  if (c.cause !== "missed" || c.slots?.[0] === undefined) return undefined;
  const latest = facts.latestRun(c.schedule);
  if (latest !== undefined && Date.parse(latest.slot) >= Date.parse(c.slots[0]))
    return resolve(`run ${latest.runId} came for the slot`);
  return undefined;
}

export const CONDITION_KINDS = {
  gate_stuck: {
    label: "gate stuck",
    runGroup: {
      title: "runs stop at the completion gate",
      one: "is stuck at its completion gate",
      many: "stopped at the completion gate",
      note: (c) => {
        const open = c.gate.openTasks.map((t) => t.id).join(", ") || "tasks";
        return `run ${c.run} is stuck at the gate: ${open} open (${c.gate.refusals} refusals)`;
      },
    },
    live: true,
    severity: critical,
    paging: "critical",
    title: (c) => `Run ${c.run} is stuck at its completion gate (${c.gate.refusals} refusals)`,
    detail: () => undefined,
    subject: runSubject,
    ending: byGroup,
    gate: (c) => c.gate,
  },
  run_failed: {
    label: "run failed",
    runGroup: {
      title: "runs fail",
      one: "failed",
      many: "failed",
      note: (c) => {
        const attempt =
          c.retry === undefined ? "" : ` (attempt ${c.retry.attempt} of ${c.retry.of})`;
        return (c.gateRefusals ?? 0) > 0
          ? `run ${c.run} stopped at the gate (${c.reason}, ${c.gateRefusals} refusals)${attempt}`
          : `run ${c.run} ${c.outcome}: ${c.reason}${attempt}`;
      },
    },
    live: false,
    // A run that gave up is news nobody else will notice; with its gate refusing, a stuck gate.
    severity: (c) => (c.outcome === "failed" || (c.gateRefusals ?? 0) > 0 ? "critical" : "warning"),
    paging: "critical",
    title: (c) => `Run ${c.run} ${c.outcome}: ${c.reason}`,
    detail: (c) => c.detail,
    subject: runSubject,
    ending: byGroup,
  },
  run_timed_out: {
    label: "run timed out",
    runGroup: { title: "runs time out", one: "timed out", many: "timed out" },
    live: false,
    severity: critical,
    paging: "critical",
    title: (c) => `Run ${c.run} timed out and was killed`,
    detail: () => undefined,
    subject: runSubject,
    ending: byGroup,
  },
  run_crashed: {
    label: "run crashed",
    runGroup: { title: "runs crash", one: "crashed", many: "crashed" },
    live: false,
    severity: critical,
    paging: "critical",
    title: (c) => `Run ${c.run} crashed`,
    detail: () => undefined,
    subject: runSubject,
    ending: byGroup,
  },
  run_stalled: {
    label: "run stalled",
    runGroup: { title: "runs stall", one: "stalled", many: "stalled" },
    live: true,
    severity: warning,
    paging: "warning",
    title: (c) => `Run ${c.run} stalled: no journal record since ${c.lastRecordAt}`,
    detail: () => undefined,
    subject: runSubject,
    ending: byGroup,
  },
  question_pending: {
    label: "run asks a human",
    runGroup: undefined,
    live: true,
    severity: critical,
    paging: "critical",
    title: (c) => `Run ${c.run} asks: ${oneLine(c.question)}`,
    detail: (c) =>
      `Question ${c.questionId}, asked ${c.askedAt}:\n${c.question}\n\n${c.timeoutAt ? `The run waits for the answer until ${c.timeoutAt}, then goes on without one.` : "The run waits for the answer."}`,
    subject: runSubject,
    ending: questionEnding,
    question: (c) => c.questionId,
  },
  schedule_trouble: {
    label: "schedule trouble",
    runGroup: undefined,
    live: false,
    severity: warning,
    paging: "warning",
    title: (c) => c.summary,
    detail: (c) => (c.slots === undefined ? undefined : `Slots: ${c.slots.join(", ")}`),
    subject: (c) => `${c.schedule} ${c.cause}`,
    ending: missedEnding,
  },
  budget_exhausted: {
    label: "budget spent",
    runGroup: undefined,
    live: false,
    severity: warning,
    paging: "warning",
    title: (c) =>
      `Schedule ${c.schedule}: ${c.period === "day" ? "daily" : "monthly"} budget spent for ${c.periodKey}`,
    detail: (c) =>
      `${c.detail}. Raise budget in the schedule file to run sooner; spend: autoloop-cron status`,
    subject: (c) => `${c.schedule} budget`,
    // Spend conditions hold by the schedules in force: none are known before their first load.
    ending: (c, facts) =>
      facts.schedulesLoaded()
        ? resolve(`the ${c.period} turned or the budget was raised: ${c.schedule} runs again`)
        : undefined,
  },
  run_costly: {
    label: "run cost more than usual",
    runGroup: undefined,
    live: false,
    severity: warning,
    paging: "warning",
    title: (c) => `Schedule ${c.schedule}: run ${c.run} cost more than usual`,
    detail: () => undefined,
    subject: (c) => `${c.schedule} cost`,
    ending: (c, facts) =>
      facts.schedulesLoaded() ? resolve(`a later run of ${c.schedule} cost as usual`) : undefined,
  },
  schedule_paused: {
    label: "schedule paused",
    runGroup: undefined,
    live: false,
    severity: critical,
    paging: "critical",
    title: (c) => `Schedule ${c.schedule} paused after ${c.failures} failed runs in a row`,
    detail: (c) =>
      `Its slots are skipped until someone resumes it: autoloop-cron resume ${c.schedule} (or the status page's Resume button). The failed runs: ${c.runs.join(", ")}`,
    subject: (c) => `${c.schedule} paused`,
    ending: (c, facts) =>
      facts.schedulesLoaded() ? resolve(`schedule ${c.schedule} was resumed`) : undefined,
  },
  config_invalid: {
    label: "config invalid",
    runGroup: undefined,
    live: false,
    severity: critical,
    paging: "critical",
    title: (c) => `Schedule file ${c.file} is invalid`,
    detail: (c) => c.problems.join("\n"),
    subject: (c) => c.file,
    ending: byGroup,
  },
  state_unwritable: {
    label: "state not writable",
    runGroup: undefined,
    live: false,
    severity: critical,
    paging: "critical",
    title: (c) => `The ${c.what} cannot be written: ${c.error}`,
    detail: (c) =>
      `${c.waiting} line(s) of ${c.path} wait in memory and are written once the disk takes them; a restart before then loses them. Free space (df -h ${c.path}), or move state_dir.`,
    subject: (c) => c.what,
    ending: (c) => resolve(`the ${c.what}'s writes go through again; its held lines are written`),
  },
  auth_expiring: {
    label: "agent login expiring",
    runGroup: undefined,
    live: false,
    severity: critical,
    paging: "critical",
    title: (c) =>
      `The ${c.agent} login is refused: the run of ${c.schedules.length === 1 ? `schedule ${c.schedules[0]}` : `${c.schedules.length} schedules`} at ${c.nextSlot} would fail`,
    detail: (c) =>
      `The check said: ${c.detail}\n\nLog ${c.agent} in again as the user the runs use (or renew the key in the schedules' env or env_file) before ${c.nextSlot}. Schedules: ${c.schedules.join(", ")}. This alert resolves when a later check passes.`,
    subject: (c) => `${c.agent} login`,
    ending: (c, facts) =>
      facts.schedulesLoaded() ? resolve(`the ${c.agent} login check passed`) : undefined,
  },
} satisfies { [K in ConditionKind]: ConditionKindDefinition<K> };

/** The kinds about one run, which group per schedule. */
export type RunKind = {
  [K in ConditionKind]: (typeof CONDITION_KINDS)[K]["runGroup"] extends undefined ? never : K;
}[ConditionKind];

/** The definition of `c`'s kind, for asking it about `c`. */
export function kindOf(c: Condition): ConditionKindDefinition<ConditionKind> {
  // Each entry takes its own kind's conditions; `c` is of the kind it is looked up by.
  return CONDITION_KINDS[c.kind] as unknown as ConditionKindDefinition<ConditionKind>;
}

/** The definition of `kind`, for what does not need a condition (its words, its levels). */
export function kindDefinition(kind: ConditionKind): ConditionKindDefinition<ConditionKind> {
  return CONDITION_KINDS[kind] as unknown as ConditionKindDefinition<ConditionKind>;
}

/** A condition of `kind`, at the level its kind gives it. */
export function raise<K extends ConditionKind>(
  kind: K,
  fields: Omit<Of<K>, "kind" | "severity">,
): Of<K> {
  const c = { ...fields, kind } as unknown as Omit<Of<K>, "severity">;
  const definition = CONDITION_KINDS[kind] as unknown as ConditionKindDefinition<K>;
  return { ...c, severity: definition.severity(c) } as Of<K>;
}

/** The kinds about one run, which group per schedule. */
export const RUN_KINDS: ReadonlySet<ConditionKind> = new Set(
  (Object.keys(CONDITION_KINDS) as ConditionKind[]).filter((k) => CONDITION_KINDS[k].runGroup),
);

/**
 * The group a run's end joins. A run that gave up (max_iterations, stalled, max_runtime) with
 * its gate still refusing was stuck there: one problem with its earlier gate alert. A failure
 * of its own (the agent crashed, its login expired) is a problem of its own.
 */
export function endGroupKind(kind: RunKind, stoppedAtGate: boolean): RunKind {
  return stoppedAtGate ? "gate_stuck" : kind;
}

/** The words for a group of runs of `kind`. */
export function runGroupWords(kind: ConditionKind): RunGroupWords {
  return kindDefinition(kind).runGroup ?? { title: kind, one: kind, many: kind };
}
