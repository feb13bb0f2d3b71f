// Taking issues from GitHub through Octokit against a loopback GitHub that checks every request
// and answer against @octokit/openapi: the oldest ready issue, each taken once whether the
// takers share a state dir (the claim file) or not (the earliest claim comment by the same
// user; a stranger's is ignored), and given back.
import { existsSync } from "node:fs";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { IssueFollowUps } from "../../src/delivery/issue-followups.js";
import { githubIssues } from "../../src/tracker/github-issues.js";
import { readRunIssues, writeRunIssues } from "../../src/tracker/run-issues.js";
import { issueClaimPath, takeIssues } from "../../src/tracker/take.js";
import type { TrackerSource } from "../../src/tracker/tracker.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { FakeGitHub } from "../helpers/fake-github.js";

const TOKEN = "ghp_issuetoken0123456789";
let github: FakeGitHub;
afterEach(async () => {
  expect(github.problems).toEqual([]);
  await github.close();
});
afterAll(cleanupTempDirs);

async function world() {
  github = await new FakeGitHub("octo", "app", TOKEN).start();
  const source: TrackerSource = {
    kind: "github",
    repository: "octo/app",
    apiUrl: github.url,
    label: "agent-ready",
    workingLabel: "autoloop:working",
    doneLabel: "autoloop:done",
    limit: 1,
    token: { kind: "env", name: "GITHUB_TOKEN" },
  };
  return { source, tracker: githubIssues({ source, token: TOKEN }) };
}

describe("GitHub issues", () => {
  it("takes the oldest ready issue: labelled, claimed in a comment and in the state dir", async () => {
    const { source, tracker } = await world();
    github.add("Old", "first", ["agent-ready"]);
    github.add("Busy", "taken", ["agent-ready", "autoloop:working"]);
    github.add("Other", "no label", []);
    const stateDir = tempDir();
    const take = await takeIssues(tracker, source, stateDir, "nightly-20260101T000000Z");
    expect(take).toMatchObject({ kind: "taken", issues: [{ id: "1", ref: "#1", title: "Old" }] });
    expect(github.issues[0]!.labels).toContain("autoloop:working");
    expect(github.issues[0]!.comments[0]).toContain(
      "autoloop-cron:claim run=nightly-20260101T000000Z",
    );
    expect(existsSync(issueClaimPath(stateDir, source, "1"))).toBe(true);
    expect(await takeIssues(tracker, source, stateDir, "nightly-20260101T000100Z")).toEqual({
      kind: "none",
      why: `no issue ready in github octo/app (label "agent-ready")`,
    });
  });

  it("two takers over one state dir take different issues, never one twice", async () => {
    const { source, tracker } = await world();
    github.add("One", "");
    github.add("Two", "");
    const stateDir = tempDir();
    const [a, b] = await Promise.all([
      takeIssues(tracker, source, stateDir, "a-20260101T000000Z"),
      takeIssues(tracker, source, stateDir, "b-20260101T000000Z"),
    ]);
    const ids = [a, b].map((t) => (t.kind === "taken" ? t.issues[0]!.id : t.kind));
    expect(ids.sort()).toEqual(["1", "2"]);
  });

  it("takers with separate state dirs: the earliest claim comment keeps the issue", async () => {
    const { source, tracker } = await world();
    github.add("Only", "");
    // Another daemon (its own state dir) claimed it a moment before this one reads the list.
    await tracker.take("1", "elsewhere-20260101T000000Z");
    github.issues[0]!.labels = ["agent-ready"];
    const take = await takeIssues(tracker, source, tempDir(), "here-20260101T000000Z");
    expect(take.kind).toBe("none");
  });

  it("a stranger's earlier claim comment is ignored: the run takes the issue", async () => {
    const { source, tracker } = await world();
    const issue = github.add("Open to all", "");
    // Anyone may comment on a public issue; what looks like a claim from them is no claim.
    github.plantComment(issue, "<!-- autoloop-cron:claim run=x -->", "mallory");
    const take = await takeIssues(tracker, source, tempDir(), "here-20260101T000000Z");
    expect(take).toMatchObject({ kind: "taken", issues: [{ id: "1" }] });
    expect(issue.commentAuthors).toEqual(["mallory", github.login]);
  });

  it("a release comment ends earlier claims: a given-back issue is taken again", async () => {
    const { source, tracker } = await world();
    github.add("Again", "");
    const stateDir = tempDir();
    await takeIssues(tracker, source, stateDir, "first-20260101T000000Z");
    await tracker.comment("1", "<!-- autoloop-cron:release run=first-20260101T000000Z -->\nfailed");
    await tracker.release("1", false);
    await tracker.release("1", false); // the label already gone: still fine
    const { rmSync } = await import("node:fs");
    rmSync(issueClaimPath(stateDir, source, "1"));
    const take = await takeIssues(tracker, source, stateDir, "second-20260101T000000Z");
    expect(take).toMatchObject({ kind: "taken", issues: [{ id: "1" }] });
  });

  it("a follow-up cut short (kill -9 after its comment) releases the issue without commenting twice", async () => {
    const { source, tracker } = await world();
    github.add("Done", "");
    const stateDir = tempDir();
    const runId = "fix-20260101T000000Z";
    await takeIssues(tracker, source, stateDir, runId);
    await tracker.comment("1", "<!-- autoloop-cron:release run=fix-20260101T000000Z -->\ndone");
    writeRunIssues(stateDir, {
      ...{ schedule: "fix", runId, source, takenAt: "2026-01-01T00:00:00Z" },
      issues: [{ id: "1", ref: "#1", title: "Done", url: "u" }],
      end: { kind: "completed" },
      commented: ["1"],
      released: [],
      failures: 0,
    });
    const followUps = new IssueFollowUps({
      stateDir,
      runInLedger: () => undefined,
      env: { GITHUB_TOKEN: TOKEN },
    });
    await followUps.deliverDue();
    expect(github.issues[0]!.labels).toEqual(["agent-ready", "autoloop:done"]);
    expect(github.issues[0]!.comments).toHaveLength(2);
    expect(readRunIssues(stateDir, runId)).toBeUndefined();
    expect(existsSync(issueClaimPath(stateDir, source, "1"))).toBe(false);
  });

  it("a completed run's issues wait for its delivery's word, not the ledger's, while it is decided", async () => {
    const { source, tracker } = await world();
    github.add("Deliver", "");
    const stateDir = tempDir();
    const runId = "fix-20260101T000000Z";
    await takeIssues(tracker, source, stateDir, runId);
    writeRunIssues(stateDir, {
      ...{ schedule: "fix", runId, source, takenAt: "2026-01-01T00:00:00Z" },
      issues: [{ id: "1", ref: "#1", title: "Deliver", url: "u" }],
      ...{ commented: [], released: [], failures: 0 },
    });
    const followUps = new IssueFollowUps({
      stateDir,
      runInLedger: () => ({ status: "completed" }),
      env: { GITHUB_TOKEN: TOKEN },
    });
    followUps.decidingDelivery(runId);
    await followUps.deliverDue();
    expect(github.issues[0]!.comments).toHaveLength(1);
    const pull = "https://github.example/octo/app/pull/7";
    followUps.ended(runId, readRunIssues(stateDir, runId), {
      kind: "completed",
      pullRequest: pull,
    });
    await followUps.deliverDue();
    expect(github.issues[0]!.comments[1]).toContain(`completed: ${pull}`);
  });

  it("a refused token is a failure saying what to check", async () => {
    const { source } = await world();
    github.add("Any", "");
    const tracker = githubIssues({ source, token: "ghp_wrongtoken0123456789" });
    const take = await takeIssues(tracker, source, tempDir(), "r-20260101T000000Z");
    expect(take).toMatchObject({ kind: "failed" });
    expect(take.kind === "failed" && take.error).toContain("401");
  });
});
