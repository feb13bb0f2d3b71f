import { describe, expect, it } from "vitest";
import type { JournalRecord } from "../../src/journal/codec.js";
import { determineOutcome, type OutcomeInput } from "../../src/scheduler/launch/outcome.js";
import { RunEndScan } from "../../src/scheduler/launch/outcome-journal.js";
import {
  isScheduledRunId,
  newScheduledRunId,
  scheduledRunIdPrefix,
} from "../../src/scheduler/ledger/scheduled-run-id.js";

const base: OutcomeInput = {
  kind: "preset",
  durationMs: 5,
  journalPath: "/p/.autoloop/journal.jsonl",
};
const stop = (reason: string) => ({ topic: "loop.stop" as const, reason });

describe("determineOutcome", () => {
  it.each([
    [
      "loop.complete",
      { terminal: { topic: "loop.complete" as const, reason: "completion_event" }, exitCode: 0 },
      "completed",
      "journal",
    ],
    ["failed-class stop", { terminal: stop("backend_failed"), exitCode: 1 }, "failed", "journal"],
    ["auth_failed", { terminal: stop("auth_failed"), exitCode: 1 }, "failed", "journal"],
    ["backend_timeout", { terminal: stop("backend_timeout"), exitCode: 1 }, "timed_out", "journal"],
    [
      "stopped-class max_iterations",
      { terminal: stop("max_iterations"), exitCode: 3 },
      "failed",
      "journal",
    ],
    ["stopped-class stalled", { terminal: stop("stalled"), exitCode: 3 }, "failed", "journal"],
    [
      "interrupted reason",
      { terminal: stop("interrupted"), exitCode: 130 },
      "interrupted",
      "journal",
    ],
    ["unknown reason fails closed", { terminal: stop("weird") }, "failed", "journal"],
    [
      "scheduler timeout wins",
      { terminal: stop("interrupted"), exitCode: 130, killedBy: { by: "timeout" as const } },
      "timed_out",
      "timeout",
    ],
    [
      "operator stop wins",
      { terminal: stop("interrupted"), killedBy: { by: "operator" as const, reason: "x" } },
      "killed",
      "operator",
    ],
    ["signal, no record", { signal: "SIGKILL" }, "interrupted", "exit"],
    ["exit 2 usage, no record", { exitCode: 2 }, "failed", "exit"],
    ["exit 0, no record", { exitCode: 0 }, "completed", "exit"],
    ["exit 130, no record", { exitCode: 130 }, "interrupted", "exit"],
    ["unknown exit (adopted), no record", {}, "interrupted", "lost"],
    ["spawn failure", { spawnError: "ENOENT" }, "failed", "spawn"],
  ])("%s", (_name, input, status, basis) => {
    const outcome = determineOutcome({ ...base, ...input });
    expect(outcome.status).toBe(status);
    expect(outcome.basis).toBe(basis);
  });

  it("keeps stop reason, exit code and signal", () => {
    expect(determineOutcome({ ...base, terminal: stop("max_iterations"), exitCode: 3 })).toEqual({
      status: "failed",
      basis: "journal",
      stopReason: "max_iterations",
      exitCode: 3,
      durationMs: 5,
      journalPath: base.journalPath,
    });
  });

  it("command runs: exit 0 completed, non-zero failed, no harness exit-code meanings", () => {
    expect(determineOutcome({ ...base, kind: "command", exitCode: 0 }).status).toBe("completed");
    const failed = determineOutcome({ ...base, kind: "command", exitCode: 130 });
    expect(failed).toMatchObject({
      status: "failed",
      detail: "exit code 130 (128 + SIGINT: killed by a signal?)",
    });
  });
});

describe("run ids", () => {
  it("are `<schedule>-<UTC slot>-<5 base36>` and valid", () => {
    const id = newScheduledRunId("nightly", new Date("2026-04-07T03:05:59Z"), () => "ab12z");
    expect(id).toBe("nightly-20260407T0305-ab12z");
    expect(isScheduledRunId(id)).toBe(true);
    expect(isScheduledRunId(newScheduledRunId("nightly", new Date()))).toBe(true);
  });

  it("make any schedule name path-safe", () => {
    expect(scheduledRunIdPrefix("../etc/passwd")).toBe("etc-passwd");
    expect(scheduledRunIdPrefix("my job")).toBe("my-job");
    expect(isScheduledRunId(newScheduledRunId("../../x y", new Date()))).toBe(true);
  });

  it.each([
    "../nightly-20260407T0305-ab12z",
    "nightly-20260407T0305-ab12z/..",
    "a/b-20260407T0305-ab12z",
    "",
    "nightly-20260407T0305-AB12Z",
    "nightly-2026047T0305-ab12z",
    "x\0-20260407T0305-ab12z",
  ])("rejects %j", (text) => expect(isScheduledRunId(text)).toBe(false));
});

describe("a chain's end in the journal", () => {
  const chainEnd = (fields: Record<string, string>) =>
    ({
      shape: "system",
      run: "c1",
      topic: "chain.complete",
      ts: "",
      v: 1,
      fields,
    }) as JournalRecord;
  it("reads ours (status) and the public autoloop's (outcome) as the monitor does", () => {
    expect(new RunEndScan("c1").add([chainEnd({ status: "completed" })]).terminal).toEqual({
      topic: "loop.complete",
      reason: "chain_completed",
    });
    expect(new RunEndScan("c1").add([chainEnd({ outcome: "success" })]).terminal?.topic).toBe(
      "loop.complete",
    );
    expect(
      new RunEndScan("c1").add([chainEnd({ status: "failed", reason: "step_failed" })]).terminal,
    ).toEqual({
      topic: "loop.stop",
      reason: "step_failed",
    });
    expect(new RunEndScan("c1").add([chainEnd({ status: "interrupted" })]).terminal?.reason).toBe(
      "interrupted",
    );
  });
});

describe("a run's spend in the journal", () => {
  const usage = (run: string, model: string, cost?: number) =>
    ({
      shape: "system",
      run,
      topic: "backend.usage",
      ts: "",
      v: 1,
      fields: { model, total_tokens: 100, ...(cost !== undefined && { cost_usd: cost }) },
    }) as unknown as JournalRecord;

  it("sums the usage records of a run killed mid-way (no terminal record), per model too", () => {
    const scan = new RunEndScan("r1").add([
      usage("r1", "claude-sonnet-4-5", 0.25),
      usage("other", "claude-sonnet-4-5", 9),
      usage("r1", "gpt-5-codex"),
    ]);
    expect(scan.terminal).toBeUndefined();
    expect(scan.spend()).toEqual({
      costUsd: 0.25,
      tokens: 200,
      unpricedIterations: 1,
      byModel: {
        "claude-sonnet-4-5": { costUsd: 0.25, tokens: 100 },
        "gpt-5-codex": { costUsd: 0, tokens: 100 },
      },
    });
    expect(new RunEndScan("r2").add([usage("r1", "m", 1)]).spend()).toBeUndefined();
  });
});

describe("where a run's spend comes from", () => {
  const cheap = { costUsd: 0.01, tokens: 10, unpricedIterations: 0 };
  const planted = { ...stop("max_iterations"), spend: cheap };

  it("takes the journal's figures as the journal's, and the harness's report alone", () => {
    expect(determineOutcome({ ...base, terminal: planted })).toMatchObject({
      spend: cheap,
      spendBasis: "journal",
    });
    const spend = { costUsd: 5, tokens: 2000, unpricedIterations: 0 };
    expect(
      determineOutcome({ ...base, terminal: planted, spend, spendBasis: "harness" }),
    ).toMatchObject({ spend, spendBasis: "harness" });
    // The harness knew no figure: the terminal record does not fill it in (unknown, not $0.01).
    const unknown = determineOutcome({ ...base, terminal: planted, spendBasis: "harness" });
    expect(unknown.spend).toBeUndefined();
    expect(unknown.spendBasis).toBe("harness");
  });
});
