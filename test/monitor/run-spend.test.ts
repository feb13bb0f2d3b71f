// What a run cost, carried from its journal to where people look: the monitor's run state and
// every alert about the run, the terminal record the scheduler reads, and the ledger's summary.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JournalRecord } from "../../src/journal/codec.js";
import { renderText } from "../../src/monitor/alerts/render.js";
import { composeMessage } from "../../src/monitor/compose-alert.js";
import type { Condition } from "../../src/monitor/detect/conditions.js";
import { applyRecord, newRunState } from "../../src/monitor/detect/run-state.js";
import { RunEndScan } from "../../src/scheduler/launch/outcome-journal.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger } from "../helpers/daemon.js";

afterEach(cleanupTempDirs);

const RUN = "nightly-20261127T0200-abcde";
const rec = (topic: string, fields: Record<string, unknown> = {}): JournalRecord =>
  ({
    shape: "system",
    run: RUN,
    topic,
    ts: "2026-11-27T02:00:00.000Z",
    v: 1,
    fields,
  }) as JournalRecord;

describe("a run's cost", () => {
  it("is summed by the monitor's run state and said in every alert about the run", () => {
    const state = newRunState(RUN, "/p/.autoloop/journal.jsonl", "2026-11-27T02:00:00.000Z");
    for (const r of [
      rec("loop.start", { preset: "autofix" }),
      rec("backend.usage", { cost_usd: 0.0123, total_tokens: 4000 }),
      rec("iteration.finish"),
      rec("backend.usage", { cost_source: "unknown", total_tokens: 567 }),
      rec("iteration.finish"),
      rec("iteration.finish"), // no usage at all
    ])
      applyRecord(state, r);
    expect(state.spend).toEqual({ iterations: 3, costUsd: 0.0123, tokens: 4567, priced: 1 });
    const condition = {
      kind: "run_stalled",
      run: RUN,
      lastRecordAt: "2026-11-27T02:00:00.000Z",
      fingerprint: `run_stalled:${RUN}`,
      severity: "warning",
      summary: `run ${RUN} stalled`,
      occurredAt: "2026-11-27T02:00:00.000Z",
      schedule: "nightly",
    } as Condition;
    const message = composeMessage(
      { kind: "firing", fingerprint: condition.fingerprint, condition, firstSeenAt: "", at: "" },
      { run: state, schedule: undefined, timezone: "UTC", incident: undefined },
    );
    expect(message.cost).toEqual({
      usd: 0.0123,
      tokens: 4567,
      iterations: 3,
      unknownIterations: 2,
    });
    expect(renderText(message, { now: Date.parse("2026-11-27T02:05:00Z") })).toContain(
      "Cost:     $0.0123 (4,567 tokens, 3 iterations, 2 of unknown cost)",
    );
  });

  it("is read from the terminal record and kept in the ledger's summary", () => {
    const terminal = new RunEndScan(RUN).add([
      rec("loop.stop", {
        reason: "cost_budget",
        cost_usd: "0.500000",
        total_tokens: "1200",
        unpriced_iterations: "1",
      }),
    ]).terminal;
    expect(terminal).toEqual({
      topic: "loop.stop",
      reason: "cost_budget",
      spend: { costUsd: 0.5, tokens: 1200, unpricedIterations: 1 },
    });
    const ledger = RunLedger.open(join(tempDir(), "state"), { logger: silentLogger });
    ledger.schedule({
      runId: RUN,
      schedule: "nightly",
      slot: new Date("2026-11-27T02:00:00Z"),
      trigger: "cron",
      kind: "preset",
      argv: ["autoloop"],
      cwd: "/p",
      timeoutMs: 60_000,
    });
    ledger.finished(RUN, {
      status: "failed",
      basis: "journal",
      stopReason: "cost_budget",
      durationMs: 1000,
      journalPath: "/p/.autoloop/journal.jsonl",
      spend: terminal!.spend!,
    });
    expect(ledger.replay(RUN)?.summary).toMatchObject({
      costUsd: 0.5,
      tokens: 1200,
      unpricedIterations: 1,
    });
  });
});
