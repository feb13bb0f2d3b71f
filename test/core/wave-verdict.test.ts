// The barrier's verdict under each `parallel.aggregate.mode`, as the public finalize-wave.ts
// defines it: the pure rule, without running a wave.
import { describe, expect, it } from "vitest";
import {
  AGGREGATE_TIMEOUT,
  type AggregateOutcome,
  CANCELLED_FIRST_SUCCESS,
  waveVerdict,
} from "../../src/harness/loop/wave-verdict.js";

const ended = (...reasons: string[]) =>
  reasons.map((stopReason, i) => ({ branchId: `branch-${i + 1}`, stopReason }));
const outcome = (o: Partial<AggregateOutcome>): AggregateOutcome => ({
  mode: "wait_for_all",
  satisfiedBy: "",
  timedOut: false,
  ...o,
});

describe("waveVerdict", () => {
  it("wait_for_all: every branch must succeed; a branch timeout wins over a failure", () => {
    expect(waveVerdict(outcome({}), ended("max_iterations", "completion_event"))).toEqual({
      kind: "joined",
    });
    expect(waveVerdict(outcome({}), ended("backend_failed", "backend_timeout"))).toEqual({
      kind: "timeout",
      branches: ["branch-2"],
    });
    expect(waveVerdict(outcome({}), ended("max_iterations", "backend_failed"))).toEqual({
      kind: "failed",
      branches: ["branch-2"],
    });
  });

  it("first_success: one success joins, the cancelled and failed ones do not count", () => {
    const first = outcome({ mode: "first_success", satisfiedBy: "branch-2" });
    expect(waveVerdict(first, ended(CANCELLED_FIRST_SUCCESS, "completion_event"))).toEqual({
      kind: "joined",
    });
    const none = outcome({ mode: "first_success" });
    expect(waveVerdict(none, ended("backend_failed", "backend_timeout"))).toEqual({
      kind: "timeout",
      branches: ["branch-2"],
    });
    expect(waveVerdict(none, ended("backend_failed", "agent_failed"))).toEqual({
      kind: "failed",
      branches: ["branch-1", "branch-2"],
    });
  });

  it("timeout: past its deadline any success joins, none is a timeout; before it, wait_for_all", () => {
    const late = outcome({ mode: "timeout", timedOut: true });
    expect(waveVerdict(late, ended("max_iterations", AGGREGATE_TIMEOUT))).toEqual({
      kind: "joined",
    });
    expect(waveVerdict(late, ended("backend_failed", AGGREGATE_TIMEOUT))).toEqual({
      kind: "timeout",
      branches: ["branch-2"],
    });
    expect(
      waveVerdict(outcome({ mode: "timeout" }), ended("max_iterations", "backend_failed")),
    ).toEqual({ kind: "failed", branches: ["branch-2"] });
  });
});
