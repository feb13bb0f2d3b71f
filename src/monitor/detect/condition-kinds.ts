// Every kind of condition the monitor reports, with the words on-call reads for it and how its
// runs group: one entry per kind, and TypeScript refuses a `Condition` kind without one. The
// detectors that raise each kind are in detectors.ts (runs), schedule-trouble.ts (schedules,
// files) and facts.ts (the daemon's own writes); compose-alert.ts and status.ts speak from here.
import type { Condition, ConditionKind } from "./conditions.js";

type Of<K extends ConditionKind> = Extract<Condition, { kind: K }>;

/** The words for a schedule's runs that end one way, grouped into one alert. */
export interface RunGroupWords {
  /** "runs fail": in "Schedule nightly: runs fail" and `status`. */
  title: string;
  /** One run of the group, live or ended: "run X is stuck at its completion gate". */
  one: string;
  /** Ended runs: "3 runs stopped at the completion gate". */
  many: string;
}

export interface ConditionKindDefinition<K extends ConditionKind> {
  /** Set for kinds about one run: a schedule's runs of this kind are one alert. */
  runGroup?: RunGroupWords;
  /** The run is still running while this holds (the alert offers to stop it). */
  live: boolean;
  /** The alert's title for one condition of this kind. */
  title(c: Of<K>): string;
  /** What the alert says below its summary, when there is more. */
  detail(c: Of<K>): string | undefined;
  /** What the incident is named after, following its kind: a run, a schedule, a file. */
  subject(c: Of<K>): string;
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

export const CONDITION_KINDS: { [K in ConditionKind]: ConditionKindDefinition<K> } = {
  gate_stuck: {
    runGroup: {
      title: "runs stop at the completion gate",
      one: "is stuck at its completion gate",
      many: "stopped at the completion gate",
    },
    live: true,
    title: (c) => `Run ${c.run} is stuck at its completion gate (${c.gate.refusals} refusals)`,
    detail: () => undefined,
    subject: runSubject,
  },
  run_failed: {
    runGroup: { title: "runs fail", one: "failed", many: "failed" },
    live: false,
    title: (c) => `Run ${c.run} ${c.outcome}: ${c.reason}`,
    detail: (c) => c.detail,
    subject: runSubject,
  },
  run_timed_out: {
    runGroup: { title: "runs time out", one: "timed out", many: "timed out" },
    live: false,
    title: (c) => `Run ${c.run} timed out and was killed`,
    detail: () => undefined,
    subject: runSubject,
  },
  run_crashed: {
    runGroup: { title: "runs crash", one: "crashed", many: "crashed" },
    live: false,
    title: (c) => `Run ${c.run} crashed`,
    detail: () => undefined,
    subject: runSubject,
  },
  run_stalled: {
    runGroup: { title: "runs stall", one: "stalled", many: "stalled" },
    live: true,
    title: (c) => `Run ${c.run} stalled: no journal record since ${c.lastRecordAt}`,
    detail: () => undefined,
    subject: runSubject,
  },
  question_pending: {
    live: true,
    title: (c) => `Run ${c.run} asks: ${oneLine(c.question)}`,
    detail: (c) =>
      `Question ${c.questionId}, asked ${c.askedAt}:\n${c.question}\n\n${c.timeoutAt ? `The run waits for the answer until ${c.timeoutAt}, then goes on without one.` : "The run waits for the answer."}`,
    subject: runSubject,
  },
  schedule_trouble: {
    live: false,
    title: (c) => c.summary,
    detail: (c) => (c.slots === undefined ? undefined : `Slots: ${c.slots.join(", ")}`),
    subject: (c) => `${c.schedule} ${c.cause}`,
  },
  budget_exhausted: {
    live: false,
    title: (c) =>
      `Schedule ${c.schedule}: ${c.period === "day" ? "daily" : "monthly"} budget spent for ${c.periodKey}`,
    detail: (c) =>
      `${c.detail}. Raise budget in the schedule file to run sooner; spend: autoloop-cron status`,
    subject: (c) => `${c.schedule} budget`,
  },
  run_costly: {
    live: false,
    title: (c) => `Schedule ${c.schedule}: run ${c.run} cost more than usual`,
    detail: () => undefined,
    subject: (c) => `${c.schedule} cost`,
  },
  schedule_paused: {
    live: false,
    title: (c) => `Schedule ${c.schedule} paused after ${c.failures} failed runs in a row`,
    detail: (c) =>
      `Its slots are skipped until someone resumes it: autoloop-cron resume ${c.schedule} (or the status page's Resume button). The failed runs: ${c.runs.join(", ")}`,
    subject: (c) => `${c.schedule} paused`,
  },
  config_invalid: {
    live: false,
    title: (c) => `Schedule file ${c.file} is invalid`,
    detail: (c) => c.problems.join("\n"),
    subject: (c) => c.file,
  },
  state_unwritable: {
    live: false,
    title: (c) => `The ${c.what} cannot be written: ${c.error}`,
    detail: (c) =>
      `${c.waiting} line(s) of ${c.path} wait in memory and are written once the disk takes them; a restart before then loses them. Free space (df -h ${c.path}), or move state_dir.`,
    subject: (c) => c.what,
  },
};

/** The definition of `c`'s kind, for asking it about `c`. */
export function kindOf(c: Condition): ConditionKindDefinition<ConditionKind> {
  // Each entry takes its own kind's conditions; `c` is of the kind it is looked up by.
  return CONDITION_KINDS[c.kind] as ConditionKindDefinition<ConditionKind>;
}

/** The kinds about one run, which group per schedule. */
export const RUN_KINDS: ReadonlySet<ConditionKind> = new Set(
  (Object.keys(CONDITION_KINDS) as ConditionKind[]).filter((k) => CONDITION_KINDS[k].runGroup),
);

/** The words for a group of runs of `kind`. */
export function runGroupWords(kind: ConditionKind): RunGroupWords {
  return CONDITION_KINDS[kind].runGroup ?? { title: kind, one: kind, many: kind };
}
