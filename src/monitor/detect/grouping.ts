// On-call grouping (pure): per-run conditions and the ledger's failure streaks in, one
// condition per group out. A group is a schedule and a kind of trouble (a kind about one run,
// condition-kinds.ts `runGroup`), or one run started by hand.
// Its fingerprint is the grouping key: `<kind>:schedule/<name>` or `<kind>:<run-id>`.
import { stopReasonClass } from "../../journal/stop-reasons.js";
import {
  endGroupKind,
  kindOf,
  RUN_KINDS,
  type RunKind,
  raise,
  runGroupWords,
} from "./condition-kinds.js";
import type { Condition, ConditionKind, GroupMember, Severity } from "./conditions.js";
import { withRetry } from "./detectors.js";
import type { LedgerFailure, ScheduleStreak } from "./schedule-streak.js";

/** Members kept in a group's condition (the count of failures is kept apart). */
export const GROUP_MEMBERS_KEPT = 20;

/** A schedule's latest completed run, from the ledger or (sooner) from its journal. */
export interface Recovery {
  at: string;
  run: string;
}

export interface GroupingInput {
  /** Conditions of single runs (detectRun), and schedule/config conditions passed through. */
  conditions: readonly Condition[];
  /** Per schedule: failed runs since its last completion, from the ledger. */
  streaks: ReadonlyMap<string, ScheduleStreak>;
  /** Per schedule: its latest completed run, when the journal saw it before the ledger did. */
  completions: ReadonlyMap<string, Recovery>;
  /** Runs whose journal showed gate refusals (they ended stuck at the gate). */
  gateRefusals: (runId: string) => number;
  /** Whether a schedule is in the config: a removed schedule's runs page nobody any more. */
  isScheduled: (schedule: string) => boolean;
}

/** The group kind of a run condition: a run that stopped with its gate refusing was stuck. */
export function groupKind(c: Condition): RunKind {
  const stoppedAtGate =
    c.kind === "run_failed" && c.outcome === "stopped" && (c.gateRefusals ?? 0) > 0;
  return endGroupKind(c.kind as RunKind, stoppedAtGate);
}

export function groupFingerprint(
  kind: ConditionKind,
  c: { schedule?: string; run?: string },
): string {
  return c.schedule !== undefined ? `${kind}:schedule/${c.schedule}` : `${kind}:${c.run ?? ""}`;
}

const isLive = (c: Condition) => kindOf(c).live;

/** The changelog line for one run. */
function memberNote(c: Condition): string {
  const note = kindOf(c).runGroup?.note;
  if (note !== undefined) return note(c);
  return c.retry === undefined
    ? c.summary
    : `${c.summary} (attempt ${c.retry.attempt} of ${c.retry.of})`;
}

/** A condition for a failed run only the ledger knows of (no journal, or one not followed). */
function ledgerCondition(schedule: string, f: LedgerFailure, kind: RunKind): Condition {
  const how = f.signal
    ? `killed by ${f.signal}`
    : f.exitCode !== undefined
      ? `exit code ${f.exitCode}`
      : (f.detail?.split("\n")[0] ?? f.status);
  const reason = f.stopReason ?? how;
  const base = { run: f.runId, schedule, occurredAt: f.at, fingerprint: "" };
  if (kind === "run_timed_out")
    return raise(kind, {
      ...base,
      summary: `run ${f.runId} timed out and was killed by the scheduler`,
    });
  if (kind === "run_crashed")
    return raise(kind, { ...base, summary: `run ${f.runId} crashed (${how})`, lastRecordAt: f.at });
  const c = raise("run_failed", {
    ...base,
    summary: `run ${f.runId} failed: ${reason}`,
    reason,
    outcome: "failed",
  });
  const said = [how, f.detail ?? ""].filter((s, i, all) => s !== "" && all.indexOf(s) === i);
  const output = f.outputTail === undefined ? [] : ["", "Last lines of its output:", f.outputTail];
  const detail = [...said, ...output].join("\n");
  if (detail !== "") c.detail = detail;
  return c;
}

interface Bucket {
  kind: RunKind;
  schedule?: string;
  entries: { c: Condition; member: GroupMember }[];
}

const rank = (s: Severity) => (s === "critical" ? 1 : 0);

function groupSummary(b: Bucket, latest: Condition): string {
  const { one, many } = runGroupWords(b.kind);
  const ended = b.entries.filter((e) => !e.member.live).length;
  const reason =
    latest.kind === "run_failed" && b.kind === "run_failed" ? `: ${latest.reason}` : "";
  if (b.schedule === undefined) return `${latest.summary}`;
  if (b.entries.length === 1 || ended <= 1)
    return `schedule ${b.schedule}: run ${latest.run} ${b.entries[0]!.member.live ? one : many}${reason}`;
  return `schedule ${b.schedule}: ${ended} runs ${many} (latest ${latest.run}${reason})`;
}

/** What grouping takes from a run's condition: kept while the condition lives. */
interface Placement {
  kind: RunKind;
  fingerprint: string;
  member: GroupMember;
}

function placement(c: Condition, kind: RunKind): Placement {
  const member: GroupMember = {
    run: c.run ?? "",
    kind: c.kind,
    at: c.occurredAt,
    note: memberNote(c),
  };
  if (isLive(c)) member.live = true;
  return { kind, fingerprint: groupFingerprint(kind, c), member };
}

/**
 * The groups of the last call, to reuse: the monitor regroups after every journal line, and
 * conditions are values (a run nothing happened to keeps its condition objects), so a group
 * whose member conditions and ledger streak are the same objects as last time is the same
 * group. Keeps only the groups of the last call.
 */
export class GroupingMemo {
  /** Per run condition (an object detection made once): its group and changelog line. */
  readonly placements = new WeakMap<Condition, Placement>();
  groups = new Map<
    string,
    { members: Condition[]; streak: ScheduleStreak | undefined; grouped: Condition }
  >();
}

const sameMembers = (a: readonly Condition[], b: Bucket["entries"]) =>
  a.length === b.length && a.every((c, i) => c === b[i]!.c);

type Buckets = Map<string, Bucket>;

/** A schedule's latest completion (epoch ms; 0 if none), by the ledger or the journal. */
const recoveryOf =
  (input: GroupingInput) =>
  (schedule: string): number => {
    const fromLedger = input.streaks.get(schedule)?.lastCompletedAt;
    const fromJournal = input.completions.get(schedule)?.at;
    return Math.max(Date.parse(fromLedger ?? "") || 0, Date.parse(fromJournal ?? "") || 0);
  };

/** Adds a run's condition to its group's bucket, opening the bucket on its first member. */
function addTo(buckets: Buckets, c: Condition, place: Placement): void {
  let bucket = buckets.get(place.fingerprint);
  if (bucket === undefined) {
    bucket = { kind: place.kind, entries: [] };
    if (c.schedule !== undefined) bucket.schedule = c.schedule;
    buckets.set(place.fingerprint, bucket);
  }
  bucket.entries.push({ c, member: place.member });
}

/** Whether a run's condition still counts: its schedule exists and has not recovered since. */
function stillCounts(c: Condition, input: GroupingInput, recoveredAt: (s: string) => number) {
  if (c.schedule === undefined) return true;
  if (!input.isScheduled(c.schedule)) return false;
  // A scheduled run's end counts only until a later run of the schedule completes.
  return isLive(c) || Date.parse(c.occurredAt) >= recoveredAt(c.schedule);
}

/** Buckets the ledger's failures of runs no condition covers (not followed, or no journal). */
function addLedgerFailures(
  buckets: Buckets,
  input: GroupingInput,
  seenRuns: ReadonlySet<string>,
  recoveredAt: (s: string) => number,
): void {
  for (const [schedule, streak] of input.streaks) {
    for (const f of streak.failures) {
      if (seenRuns.has(f.runId) || Date.parse(f.at) < recoveredAt(schedule)) continue;
      // `retry` with page = "last": an attempt followed by another pages nobody.
      if (f.retry?.page === "last" && f.retry.retried) continue;
      const stopped = f.stopReason !== undefined && stopReasonClass(f.stopReason) === "stopped";
      const kind = endGroupKind(f.kind, stopped && input.gateRefusals(f.runId) > 0);
      const c = withRetry(ledgerCondition(schedule, f, kind), f.retry);
      addTo(buckets, c, placement(c, kind));
    }
  }
}

/** The group's one condition: its latest run's, with the group's severity, summary and members. */
function groupedCondition(
  fingerprint: string,
  bucket: Bucket,
  streak: ScheduleStreak | undefined,
): Condition {
  bucket.entries.sort((a, b) => Date.parse(b.member.at) - Date.parse(a.member.at));
  const latest = bucket.entries[0]!.c;
  const ended = bucket.entries.filter((e) => !e.member.live);
  const streakRuns = new Set(streak?.failures.map((f) => f.runId) ?? []);
  // Failures the journal saw before the ledger recorded them count too.
  const extra = ended.filter((e) => !streakRuns.has(e.member.run)).length;
  const consecutive = Math.max(ended.length, (streak?.failures.length ?? 0) + extra);
  // The ledger's time for a run it knows (as the status page reads it), else the journal's.
  const times = [
    ...bucket.entries.filter((e) => !streakRuns.has(e.member.run)).map((e) => e.member.at),
    ...(streak?.failures.map((f) => f.at) ?? []),
  ];
  const failingSince = times.reduce((a, b) => (Date.parse(b) < Date.parse(a) ? b : a));
  const severity = bucket.entries.reduce<Severity>(
    (s, e) => (rank(e.c.severity) > rank(s) ? e.c.severity : s),
    "warning",
  );
  // The kind stays the latest run's (its details go with it); the group's is in `group`.
  return {
    ...latest,
    fingerprint,
    severity,
    summary: groupSummary(bucket, latest),
    group: {
      kind: bucket.kind,
      by: bucket.schedule === undefined ? "run" : "schedule",
      members: bucket.entries.slice(0, GROUP_MEMBERS_KEPT).map((e) => e.member),
      consecutiveFailures: consecutive,
      failingSince,
    },
  };
}

/** One condition per group; schedule and config conditions pass through unchanged. */
export function groupConditions(input: GroupingInput, memo?: GroupingMemo): Condition[] {
  const out: Condition[] = [];
  const buckets: Buckets = new Map();
  const seenRuns = new Set<string>();
  const recoveredAt = recoveryOf(input);
  for (const c of input.conditions) {
    if (!RUN_KINDS.has(c.kind) || c.run === undefined) {
      out.push(c);
      continue;
    }
    seenRuns.add(c.run);
    if (!stillCounts(c, input, recoveredAt)) continue;
    let place = memo?.placements.get(c);
    if (place === undefined) {
      place = placement(c, groupKind(c));
      memo?.placements.set(c, place);
    }
    addTo(buckets, c, place);
  }
  addLedgerFailures(buckets, input, seenRuns, recoveredAt);

  const groups: GroupingMemo["groups"] = new Map();
  for (const [fingerprint, bucket] of buckets) {
    const streak = bucket.schedule === undefined ? undefined : input.streaks.get(bucket.schedule);
    const known = memo?.groups.get(fingerprint);
    if (
      known !== undefined &&
      known.streak === streak &&
      sameMembers(known.members, bucket.entries)
    ) {
      groups.set(fingerprint, known);
      out.push(known.grouped);
      continue;
    }
    // Members in arrival order, taken before `groupedCondition` sorts the bucket.
    const members = bucket.entries.map((e) => e.c);
    const grouped = groupedCondition(fingerprint, bucket, streak);
    groups.set(fingerprint, { members, streak, grouped });
    out.push(grouped);
  }
  if (memo !== undefined) memo.groups = groups;
  return out;
}
