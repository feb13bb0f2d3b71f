// On-call grouping: one alert per schedule and kind of trouble, the ledger's failures
// included, recovery ending a schedule's streak, hand runs grouped by themselves.
import { describe, expect, it } from "vitest";
import { type AlertRecord, reconcileAlerts } from "../../src/monitor/alert-rules.js";
import type { Condition } from "../../src/monitor/detect/conditions.js";
import { GroupingMemo, groupConditions, type Recovery } from "../../src/monitor/detect/grouping.js";
import { type ScheduleStreak, scheduleStreak } from "../../src/monitor/detect/schedule-streak.js";
import { NO_OPERATOR_STATE } from "../../src/monitor/silences.js";
import type { RunSummary } from "../../src/scheduler/ledger/events.js";
import { random } from "../helpers/random.js";

const T0 = Date.parse("2026-11-20T02:00:00.000Z");
const at = (min: number) => new Date(T0 + min * 60_000).toISOString();

function gateStuck(run: string, schedule: string | undefined, min: number): Condition {
  return {
    kind: "gate_stuck",
    run,
    ...(schedule && { schedule }),
    fingerprint: `gate_stuck:${run}:task.complete`,
    severity: "critical",
    summary: `run ${run}: completion gate refused task.complete 3 times`,
    occurredAt: at(min),
    gate: {
      topic: "task.complete",
      openTasks: [{ id: "task-2", text: "sign-off" }],
      refusals: 3,
      since: at(min),
      trigger: "count",
    },
  };
}

function stopped(run: string, schedule: string | undefined, min: number, refusals = 0): Condition {
  return {
    kind: "run_failed",
    run,
    ...(schedule && { schedule }),
    fingerprint: `run_failed:${run}`,
    severity: refusals > 0 ? "critical" : "warning",
    summary: `run ${run} stopped: max_iterations`,
    occurredAt: at(min),
    reason: "max_iterations",
    outcome: "stopped",
    ...(refusals > 0 && { gateRefusals: refusals }),
  };
}

function summary(
  runId: string,
  status: RunSummary["status"],
  min: number,
  extra: Partial<RunSummary> = {},
): RunSummary {
  return { runId, schedule: "nightly", slot: at(min), status, finishedAt: at(min + 1), ...extra };
}

const none = new Map<string, Recovery>();
const noStreaks = new Map<string, ScheduleStreak>();

function group(
  conditions: Condition[],
  streaks = noStreaks,
  completions = none,
  refusals: Record<string, number> = {},
) {
  return groupConditions({
    conditions,
    streaks,
    completions,
    gateRefusals: (id) => refusals[id] ?? 0,
    isScheduled: (name) => name !== "removed",
  });
}

describe("scheduleStreak", () => {
  it("counts failures back to the last completed run, ignoring skips, running runs and intended ends", () => {
    const runs = [
      summary("r7", "running", 70),
      summary("r6", "failed", 60, { exitCode: 7, detail: "exit code 7" }),
      summary("r5", "skipped", 50),
      summary("r4", "killed", 40, { killedBy: "operator" }),
      summary("r3", "timed_out", 30),
      summary("r2", "interrupted", 20, { signal: "SIGKILL", basis: "exit" }),
      summary("r1", "interrupted", 15, { basis: "journal" }),
      summary("r0", "completed", 10),
      summary("old", "failed", 0),
    ];
    const streak = scheduleStreak("nightly", runs);
    expect(streak.failures.map((f) => `${f.runId}:${f.kind}`)).toEqual([
      "r6:run_failed",
      "r3:run_timed_out",
      "r2:run_crashed",
    ]);
    expect(streak).toMatchObject({
      lastCompletedRun: "r0",
      lastCompletedAt: at(11),
      truncated: false,
    });
  });
});

describe("groupConditions", () => {
  it("makes every run of a schedule stuck at its gate one condition, keyed by the schedule", () => {
    const out = group([gateStuck("a", "nightly", 0), stopped("b", "nightly", 60, 4)]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({
      fingerprint: "gate_stuck:schedule/nightly",
      severity: "critical",
      run: "b",
      group: { kind: "gate_stuck", by: "schedule", consecutiveFailures: 1, failingSince: at(0) },
    });
    expect(out[0]!.group!.members.map((m) => `${m.run}${m.live ? " (live)" : ""}`)).toEqual([
      "b",
      "a (live)",
    ]);
    expect(out[0]!.group!.members[0]!.note).toBe(
      "run b stopped at the gate (max_iterations, 4 refusals)",
    );
  });

  it("keeps a run started by hand its own group, gate and give-up together", () => {
    const out = group([gateStuck("hand-1", undefined, 0), stopped("hand-2", undefined, 5, 2)]);
    expect(out.map((c) => c.fingerprint).sort()).toEqual([
      "gate_stuck:hand-1",
      "gate_stuck:hand-2",
    ]);
  });

  it("adds the ledger's failures that wrote no journal, with their exit code and output", () => {
    const streak = scheduleStreak("nightly", [
      summary("c2", "failed", 2, { exitCode: 7, detail: "exit code 7" }),
      summary("c1", "failed", 1, { detail: "Command failed with ENOENT: nope\nspawn nope ENOENT" }),
    ]);
    streak.failures[0]!.outputTail = "build broke";
    const out = group([], new Map([["nightly", streak]]));
    expect(out).toHaveLength(1);
    const c = out[0]!;
    expect(c).toMatchObject({
      fingerprint: "run_failed:schedule/nightly",
      run: "c2",
      summary: "schedule nightly: 2 runs failed (latest c2: exit code 7)",
      group: { consecutiveFailures: 2 },
    });
    expect(c.kind === "run_failed" && c.detail).toBe(
      "exit code 7\n\nLast lines of its output:\nbuild broke",
    );
    expect(c.group!.members.map((m) => m.note)).toEqual([
      "run c2 failed: exit code 7",
      "run c1 failed: Command failed with ENOENT: nope",
    ]);
  });

  it("leaves out the runs of a schedule no longer in the config", () => {
    expect(group([gateStuck("a", "removed", 0)])).toEqual([]);
  });

  it("drops a schedule's failures once a later run completed (journal or ledger)", () => {
    const failing = [stopped("b", "nightly", 60, 4)];
    const recovered = new Map([["nightly", { at: at(90), run: "c" }]]);
    expect(group(failing, noStreaks, recovered)).toEqual([]);
    // A live problem of a newer run still counts.
    expect(group([...failing, gateStuck("d", "nightly", 100)], noStreaks, recovered)).toHaveLength(
      1,
    );
  });
});

describe("alert rules for groups", () => {
  const ops = NO_OPERATOR_STATE;
  const run = (
    alerts: Map<string, AlertRecord>,
    conditions: Condition[],
    min: number,
    opts: {
      ending?: Parameters<typeof reconcileAlerts>[5];
      firstLook?: boolean;
    } = {},
  ) =>
    reconcileAlerts(
      alerts,
      conditions,
      new Date(T0 + min * 60_000),
      ops,
      undefined,
      opts.ending,
      opts.firstLook,
    ).map(
      (n) =>
        `${n.kind}${n.members ? ` ${n.members.map((m) => m.run).join(",")}` : ""}${n.note ? ` (${n.note})` : ""}`,
    );

  it("pages once; later runs join the incident without a page; recovery resolves at once", () => {
    const alerts = new Map<string, AlertRecord>();
    expect(run(alerts, group([gateStuck("a", "nightly", 0)]), 1)).toEqual(["firing"]);
    expect(run(alerts, group([stopped("a", "nightly", 5, 3)]), 6)).toEqual([]);
    expect(
      run(alerts, group([stopped("a", "nightly", 5, 3), gateStuck("b", "nightly", 60)]), 61),
    ).toEqual(["update b"]);
    const ending = () => ({ kind: "resolve" as const, note: "run c completed" });
    expect(run(alerts, [], 120, { ending })).toEqual(["resolved (run c completed)"]);
  });

  it("on a first look, lists what had already ended without paging, and pages when a new run joins", () => {
    const alerts = new Map<string, AlertRecord>();
    const ended = group([stopped("a", "nightly", 5, 3)]);
    expect(run(alerts, ended, 60, { firstLook: true })).toEqual([]);
    expect([...alerts.values()].map((a) => [a.phase, a.baseline])).toEqual([["firing", true]]);
    expect(run(alerts, ended, 61)).toEqual([]);
    expect(
      run(alerts, group([stopped("a", "nightly", 5, 3), stopped("b", "nightly", 62, 2)]), 63),
    ).toEqual(["firing"]);
  });

  it("a live problem on a first look still pages", () => {
    expect(run(new Map(), group([gateStuck("a", "nightly", 0)]), 1, { firstLook: true })).toEqual([
      "firing",
    ]);
  });

  it("expires what it stops tracking without an all-clear", () => {
    const alerts = new Map<string, AlertRecord>();
    run(alerts, group([stopped("hand", undefined, 0, 2)]), 1);
    const ending = () => ({ kind: "expire" as const, note: "run hand is no longer tracked" });
    expect(run(alerts, [], 2000, { ending })).toEqual(["expired (run hand is no longer tracked)"]);
    expect(alerts.size).toBe(0);
  });
});

describe("printable", () => {
  it("escapes control characters from journal text", async () => {
    const { printable } = await import("../../src/monitor/status.js");
    expect(printable("run-1\u001b[2J\r\nrm -rf\u0007")).toBe(
      "run-1\\u001b[2J\\u000d\\u000arm -rf\\u0007",
    );
  });
});

describe("GroupingMemo", () => {
  it("gives what grouping without it gives, over seeded sequences of changes, reusing unchanged groups", () => {
    let reused = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const rnd = random(seed);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
      const memo = new GroupingMemo();
      const byRun = new Map<string, Condition>();
      let streaks = noStreaks;
      let completions = none;
      let previous: Condition[] = [];
      for (let step = 0; step < 25; step++) {
        // Some runs change (new condition objects), some end, the rest keep theirs.
        for (let n = Math.floor(rnd() * 4); n > 0; n--) {
          const run = `r${Math.floor(rnd() * 12)}`;
          const schedule = pick(["nightly", "hourly", "removed", undefined]);
          const min = Math.floor(rnd() * 100);
          if (rnd() < 0.2) byRun.delete(run);
          else
            byRun.set(
              run,
              rnd() < 0.5
                ? gateStuck(run, schedule, min)
                : stopped(run, schedule, min, rnd() < 0.5 ? 2 : 0),
            );
        }
        if (rnd() < 0.2)
          streaks = new Map([
            [
              "nightly",
              scheduleStreak("nightly", [summary(`l${step}`, "failed", step, { exitCode: 1 })]),
            ],
          ]);
        if (rnd() < 0.1)
          completions = new Map([["hourly", { at: at(Math.floor(rnd() * 100)), run: "ok" }]]);
        const conditions = [...byRun.values()];
        const input = {
          conditions,
          streaks,
          completions,
          gateRefusals: () => 0,
          isScheduled: (name: string) => name !== "removed",
        };
        const withMemo = groupConditions(input, memo);
        expect(withMemo).toEqual(groupConditions(input));
        reused += withMemo.filter((c) => previous.includes(c)).length;
        previous = withMemo;
      }
    }
    expect(reused).toBeGreaterThan(100);
  });

  it("reuses a group only while its runs' conditions and streak are the same objects", () => {
    const memo = new GroupingMemo();
    const a = gateStuck("r1", "nightly", 1);
    const input = (conditions: Condition[], streaks = noStreaks) => ({
      conditions,
      streaks,
      completions: none,
      gateRefusals: () => 0,
      isScheduled: () => true,
    });
    const [first] = groupConditions(input([a]), memo);
    expect(groupConditions(input([a]), memo)[0]).toBe(first);
    const b = gateStuck("r2", "nightly", 2);
    const [second] = groupConditions(input([a, b]), memo);
    expect(second).not.toBe(first);
    expect(second!.group!.members.map((m) => m.run)).toEqual(["r2", "r1"]);
    const streaks = new Map([
      ["nightly", scheduleStreak("nightly", [summary("r0", "failed", 0, { exitCode: 1 })])],
    ]);
    const [third] = groupConditions(input([a, b], streaks), memo);
    expect(third).not.toBe(second);
    // The streak is the group's input too: a changed one regroups.
    expect(second!.group!.consecutiveFailures).toBe(0);
    expect(third!.group!.consecutiveFailures).toBe(1);
  });
});
