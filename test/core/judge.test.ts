import { describe, expect, it } from "vitest";
import { type IterationFacts, judgeIteration } from "../../src/harness/loop/judge.js";

const facts = (over: Partial<IterationFacts> = {}): IterationFacts => ({
  iteration: 3,
  result: { kind: "exited", exitCode: 0 },
  output: "worked on it",
  emitted: [],
  seenTopics: new Set(),
  openTasks: () => [],
  eventLoop: {
    completion_event: "task.complete",
    completion_promise: "LOOP_COMPLETE",
    required_events: [],
    stall_iterations: 3,
  },
  stall: { signature: "", identical: 0 },
  ...over,
});

describe("judgeIteration", () => {
  it("completes on the completion event once every required event was seen", () => {
    expect(
      judgeIteration(facts({ emitted: [{ topic: "task.complete", payload: "" }] })).next,
    ).toEqual({ complete: true, reason: "completion_event" });
    const refused = judgeIteration(
      facts({
        emitted: [{ topic: "task.complete", payload: "" }],
        eventLoop: { ...facts().eventLoop, required_events: ["review.passed", "tests.green"] },
        seenTopics: new Set(["tests.green"]),
      }),
    );
    expect(refused.next).toBe("continue");
    expect(refused.completionNote).toBe(
      "Completion refused: required events not yet emitted: review.passed.",
    );
  });

  it("refuses the completion promise at the gate while tasks are open, and never asks otherwise", () => {
    const gated = judgeIteration(
      facts({ output: "done LOOP_COMPLETE", openTasks: () => ["task-2", "task-5"] }),
    );
    expect(gated).toMatchObject({ next: "continue", gate: { openTasks: ["task-2", "task-5"] } });
    expect(judgeIteration(facts({ output: "done LOOP_COMPLETE" })).next).toEqual({
      complete: true,
      reason: "completion_promise",
    });
    const asked = judgeIteration(
      facts({
        openTasks: () => {
          throw new Error("tasks read without a completion claim");
        },
      }),
    );
    expect(asked.gate).toBeUndefined();
  });

  it("stops as stalled after stall_iterations identical iterations, counting across calls", () => {
    let stall = { signature: "", identical: 0 };
    const nexts: unknown[] = [];
    for (let i = 1; i <= 3; i++) {
      const j = judgeIteration(facts({ iteration: i, stall }));
      stall = j.stall;
      nexts.push(typeof j.next === "string" ? j.next : j.next.reason);
    }
    expect(nexts).toEqual(["continue", "continue", "stalled"]);
    const changed = judgeIteration(facts({ output: "something new", stall }));
    expect(changed.stall.identical).toBe(1);
    expect(
      judgeIteration(facts({ stall, eventLoop: { ...facts().eventLoop, stall_iterations: 0 } }))
        .next,
    ).toBe("continue");
  });

  it("stops on interruption, timeout, or a failing agent before looking at completion", () => {
    expect(judgeIteration(facts({ result: { kind: "interrupted" } })).next).toMatchObject({
      reason: "interrupted",
      fields: { completed_iterations: "3" },
    });
    expect(
      judgeIteration(facts({ result: { kind: "timed_out" }, output: "x".repeat(600) })).next,
    ).toMatchObject({ reason: "backend_timeout", fields: { output_tail: "x".repeat(500) } });
    expect(
      judgeIteration(facts({ result: { kind: "exited", exitCode: 1 }, output: "LOOP_COMPLETE" }))
        .next,
    ).toBe("agent_failed");
    expect(judgeIteration(facts({ result: { kind: "spawn_failed" } })).next).toBe("agent_failed");
  });
});
