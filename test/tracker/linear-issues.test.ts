// Taking issues from Linear through @linear/sdk against a loopback Linear that validates every
// request against Linear's schema (derived from the SDK's types): the oldest ready issue, moved
// to the working state and claimed in a comment, backed off when another claim (by the same
// user; a stranger's is ignored) came first, moved on or given back at the end; a refused key
// names where it was read from.
import { createServer } from "node:http";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { IssueFollowUps } from "../../src/delivery/issue-followups.js";
import { linearCaller } from "../../src/tracker/linear-client.js";
import { linearIssues } from "../../src/tracker/linear-issues.js";
import { readRunIssues, writeRunIssues } from "../../src/tracker/run-issues.js";
import { takeIssues } from "../../src/tracker/take.js";
import type { TrackerSource } from "../../src/tracker/tracker.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { FakeLinear } from "../helpers/fake-linear.js";
import { closeLoopback, listenLoopback } from "../helpers/loopback.js";

const KEY = "lin_api_issuekey0123456789";
let linear: FakeLinear;
afterEach(async () => {
  expect(linear.problems).toEqual([]);
  await linear.close();
});
afterAll(cleanupTempDirs);

async function world(extra: Partial<TrackerSource> = {}) {
  linear = await new FakeLinear("ENG", KEY).start();
  const source: TrackerSource = {
    kind: "linear",
    repository: "ENG",
    apiUrl: linear.url,
    state: "Todo",
    workingState: "In Progress",
    doneState: "In Review",
    limit: 1,
    token: { kind: "env", name: "LINEAR_API_KEY" },
    ...extra,
  };
  return { source, tracker: linearIssues({ source, token: KEY }) };
}

describe("Linear issues", () => {
  it("takes the oldest issue in the ready state, then moves it to the done state", async () => {
    const { source, tracker } = await world({ label: "agent" });
    linear.add("Backlog", "", "Backlog", ["agent"]);
    linear.add("Unlabelled", "", "Todo");
    const ready = linear.add("Ready", "the body", "Todo", ["agent"]);
    const take = await takeIssues(tracker, source, tempDir(), "fix-20260101T000000Z");
    expect(take).toMatchObject({
      kind: "taken",
      issues: [{ id: ready.id, ref: "ENG-3", title: "Ready", body: "the body" }],
    });
    expect(ready.state.name).toBe("In Progress");
    expect(linear.commentsOf(ready)[0]).toContain("autoloop-cron:claim run=fix-20260101T000000Z");
    await tracker.release(ready.id, true);
    expect(ready.state.name).toBe("In Review");
    // Released once already (a restart repeats it): its state, moved on, is left alone.
    await tracker.release(ready.id, false);
    expect(ready.state.name).toBe("In Review");
  });

  it("backs off an issue another daemon's comment claimed first, and gives one back", async () => {
    const { source, tracker } = await world();
    const only = linear.add("Only", "");
    await tracker.take(only.id, "elsewhere-20260101T000000Z");
    only.state = linear.state("Todo");
    expect((await takeIssues(tracker, source, tempDir(), "here-20260101T000000Z")).kind).toBe(
      "none",
    );
    only.state = linear.state("In Progress");
    await tracker.release(only.id, false);
    expect(only.state.name).toBe("Todo");
  });

  it("ignores a claim comment by another member: the run takes the issue", async () => {
    const { source, tracker } = await world();
    const issue = linear.add("Open to all", "");
    linear.plantComment(issue, "<!-- autoloop-cron:claim run=x -->", linear.addUser("mallory"));
    const take = await takeIssues(tracker, source, tempDir(), "here-20260101T000000Z");
    expect(take).toMatchObject({ kind: "taken", issues: [{ id: issue.id }] });
    expect(issue.comments.map((c) => c.user.name)).toEqual(["mallory", "autoloop-bot"]);
  });

  it("a refused key names the variable it was read from; a missing state names the setting", async () => {
    const { source } = await world({ doneState: "Shipped" });
    const issue = linear.add("Any", "");
    const refused = linearIssues({ source, token: "lin_api_wrong0123456789" });
    const take = await takeIssues(refused, source, tempDir(), "r-20260101T000000Z");
    expect(take.kind === "failed" && take.error).toMatch(
      /^Linear: listing issues: 401 .*the API key was refused: check the variable LINEAR_API_KEY \(source\.linear_issues\.token_env\)/,
    );
    const tracker = linearIssues({ source, token: KEY });
    // Found at the take, before the issue moves: not at the end of a run that worked on it.
    await expect(tracker.take(issue.id, "r-20260101T000000Z")).rejects.toThrow(
      'Linear team ENG has no workflow state "Shipped": set source.linear_issues.done_state to one of "Backlog", "Todo", "In Progress", "In Review", "Done"',
    );
    expect(issue.state.name).toBe("Todo");
  });

  it("a run's follow-up comments its pull request's URL and moves the issue to the done state", async () => {
    const { source, tracker } = await world();
    const issue = linear.add("Delivered", "");
    const stateDir = tempDir();
    const runId = "fix-20260101T000000Z";
    await takeIssues(tracker, source, stateDir, runId);
    const followUps = new IssueFollowUps({
      stateDir,
      runInLedger: () => undefined,
      env: { LINEAR_API_KEY: KEY },
    });
    writeRunIssues(stateDir, {
      ...{ schedule: "fix", runId, source, takenAt: "2026-01-01T00:00:00Z" },
      issues: [{ id: issue.id, ref: "ENG-1", title: "Delivered", url: issue.url }],
      commented: [],
      released: [],
      failures: 0,
    });
    const pull = "https://github.example/octo/app/pull/7";
    followUps.ended(runId, readRunIssues(stateDir, runId), {
      kind: "completed",
      pullRequest: pull,
    });
    await followUps.deliverDue();
    expect(linear.commentsOf(issue)[1]).toBe(
      `<!-- autoloop-cron:release run=${runId} -->\nautoloop-cron run \`${runId}\` completed: ${pull}`,
    );
    expect(issue.state.name).toBe("In Review");
    expect(readRunIssues(stateDir, runId)).toBeUndefined();
  });

  it("a follow-up given up says to move the issue out of the working state by hand", async () => {
    const { source } = await world();
    const stateDir = tempDir();
    const runId = "fix-20260101T000000Z";
    const errors: string[] = [];
    const followUps = new IssueFollowUps({
      stateDir,
      runInLedger: () => undefined,
      env: { LINEAR_API_KEY: "lin_api_refused0123456789" },
      maxAgeMs: 0,
      logger: {
        info() {},
        warn() {},
        error: (o) => errors.push(String((o as { fix?: string }).fix)),
      },
    });
    writeRunIssues(stateDir, {
      ...{ schedule: "fix", runId, source, takenAt: "2026-01-01T00:00:00Z" },
      issues: [{ id: "gone", ref: "ENG-9", title: "t", url: "u" }],
      end: { kind: "failed", status: "failed" },
      endedAt: "2026-01-01T00:00:00Z",
      commented: [],
      released: [],
      failures: 0,
    });
    await followUps.deliverDue();
    expect(errors).toEqual([
      expect.stringMatching(/move ENG-9 out of "In Progress" by hand, so that a later slot/),
    ]);
  });

  it("ticks a synced task's box in the issue's description, leaving the rest as it is", async () => {
    const { tracker } = await world();
    const issue = linear.add("Boxes", "Do:\n- [ ] one\n- [ ] two\n", "Todo");
    expect(await tracker.issueBody!(issue.id)).toBe("Do:\n- [ ] one\n- [ ] two\n");
    await tracker.editIssueBody!(issue.id, "Do:\n- [x] one\n- [ ] two\n");
    expect(issue.description).toBe("Do:\n- [x] one\n- [ ] two\n");
    expect(issue.state.name).toBe("Todo");
  });

  it("the loopback refuses a request outside Linear's schema, as Linear would", async () => {
    await world();
    const res = await fetch(linear.url, {
      method: "POST",
      headers: { authorization: KEY, "content-type": "application/json" },
      body: JSON.stringify({ query: "{ issues(first: 1) { nodes { id colour } } }" }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      errors: [{ message: expect.stringContaining('Cannot query field "colour" on type "Issue"') }],
    });
    expect(linear.problems.splice(0)).toHaveLength(1);
  });
});

describe("a Linear that does not answer", () => {
  it("fails the call at its deadline, saying what was being done", async () => {
    const silent = createServer(() => {});
    const url = await listenLoopback(silent);
    linear = await new FakeLinear("ENG", KEY).start(); // what afterEach checks and closes
    const source = { apiUrl: url, repository: "ENG", token: { kind: "env", name: "K" } };
    const call = linearCaller(source as TrackerSource, KEY, 200);
    await expect(call("listing issues", (c) => c.issues())).rejects.toThrow(
      /^Linear: listing issues: no answer .*timeout/,
    );
    await closeLoopback(silent);
  });
});
