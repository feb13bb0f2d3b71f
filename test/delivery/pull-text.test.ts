// A pull request's title and body: the report's heading and text, then the run's facts.
import { describe, expect, it } from "vitest";
import { pullRequestBody, pullRequestTitle } from "../../src/delivery/pull-text.js";

const FACTS = {
  schedule: "simplify",
  runId: "r1",
  commits: 2,
  costUsd: 3.5,
  iterations: 4,
  durationMs: 600_000,
};

describe("a pull request's text", () => {
  it("takes the report's first heading as its title, else names the schedule and run", () => {
    expect(pullRequestTitle("intro\n## Dead code removed\n", FACTS)).toBe(
      "simplify: Dead code removed",
    );
    expect(pullRequestTitle(undefined, FACTS)).toBe("autoloop simplify: run r1");
    expect(pullRequestTitle(`# ${"x".repeat(500)}`, FACTS).length).toBe(200);
  });

  it("is the report, then the run's facts with a link to its page when there is one", () => {
    const body = pullRequestBody(
      "# Done\n\n- one\n",
      { ...FACTS, runUrl: "https://cron.example/runs/r1" },
      "SIMPLIFY.md",
    );
    expect(body.startsWith("# Done\n\n- one\n")).toBe(true);
    expect(body).toContain("- run: [`r1`](https://cron.example/runs/r1)");
    expect(body).toContain("- cost: $3.50");
    expect(body).toContain("- iterations: 4");
    expect(pullRequestBody(undefined, FACTS, "SIMPLIFY.md")).toContain(
      "The run wrote no `SIMPLIFY.md`",
    );
  });

  it("is cut to what GitHub takes", () => {
    const body = pullRequestBody("y".repeat(100_000), FACTS, "SIMPLIFY.md");
    expect(body.length).toBeLessThanOrEqual(60_000);
    expect(body).toContain("(report cut; see SIMPLIFY.md)");
    expect(body).toContain("- run: `r1`");
  });
});
