// A failed issue follow-up is retried when the tracker may answer later and given up at once
// when it refused (the token, the issue); given up, it owes a page whose fix names the token's
// variable and the working mark. A follow-up still failing after its day is given up too.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { followUpFailure, givenUpFix } from "../../src/delivery/issue-followup-failure.js";
import { IssueFollowUps } from "../../src/delivery/issue-followups.js";
import { githubFailure } from "../../src/forge/octokit.js";
import { listUntoldIssues } from "../../src/monitor/outbox/untold-issues.js";
import { readRunIssues, writeRunIssues } from "../../src/tracker/run-issues.js";
import type { TrackerSource } from "../../src/tracker/tracker.js";
import { SecretError } from "../../src/util/secrets.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { FakeGitHub } from "../helpers/fake-github.js";

const TOKEN = "ghp_unittoken0123456789";
const NOW = Date.parse("2026-11-29T10:00:00Z");
const answer = (status: number, headers: Record<string, string> = {}) =>
  githubFailure("commenting on the issue", { status, message: "no", response: { headers } });

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});
afterAll(cleanupTempDirs);

const github: TrackerSource = {
  kind: "github",
  repository: "octo/app",
  apiUrl: "https://api.github.com",
  workingLabel: "autoloop:working",
  limit: 1,
  token: { kind: "env", name: "GITHUB_TOKEN" },
};

describe("a failed issue follow-up", () => {
  it("is refused for good by 401, 403, 404, 422 and an unreadable token; retried otherwise", () => {
    const kinds = [401, 403, 404, 422, 500, 503, 429, 408].map((s) => followUpFailure(answer(s)));
    expect(kinds).toEqual([
      { kind: "refused", status: 401 },
      { kind: "refused", status: 403 },
      { kind: "refused", status: 404 },
      { kind: "refused", status: 422 },
      { kind: "retry" },
      { kind: "retry" },
      { kind: "retry" },
      { kind: "retry" },
    ]);
    expect(followUpFailure(answer(503, { "retry-after": "7" }))).toEqual({
      kind: "retry",
      retryAfterMs: 7000,
    });
    // A 403 of a spent rate limit waits for its reset.
    const reset = String(Math.floor(Date.now() / 1000) + 60);
    const limited = { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset };
    expect(followUpFailure(answer(403, limited)).kind).toBe("retry");
    expect(followUpFailure(new TypeError("fetch failed"))).toEqual({ kind: "retry" });
    expect(followUpFailure(new SecretError("GITHUB_TOKEN is not set"))).toEqual({
      kind: "refused",
    });
  });

  it("names the fix: the token's variable or file, then the working mark", () => {
    expect(givenUpFix(github, ["#1"], { kind: "refused", status: 401 })).toBe(
      'replace the token in the environment variable GITHUB_TOKEN (github refused it), then remove the label "autoloop:working" from octo/app#1 by hand, so that a later slot takes it again',
    );
    const file = { ...github, token: { kind: "file" as const, path: "/run/secrets/gh" } };
    expect(givenUpFix(file, ["#1", "#2"], { kind: "refused", status: 403 })).toBe(
      'give the token in the file /run/secrets/gh write access to the issues of octo/app, then remove the label "autoloop:working" from octo/app#1, octo/app#2 by hand, so that a later slot takes them again',
    );
    const linear: TrackerSource = {
      kind: "linear",
      repository: "ENG",
      apiUrl: "https://api.linear.app/graphql",
      workingState: "In Progress",
      limit: 1,
      token: { kind: "env", name: "LINEAR_API_KEY" },
    };
    expect(givenUpFix(linear, ["ENG-12"], { kind: "retry" })).toBe(
      'move ENG-12 out of "In Progress" by hand, so that a later slot takes it again',
    );
  });

  it("still failing after its day (a 503 every time) is given up and owes a page", async () => {
    const fake = await new FakeGitHub("octo", "app", TOKEN).start();
    closers.push(() => fake.close());
    fake.add("Down", "", ["agent-ready", "autoloop:working"]);
    fake.refuse = () => 503;
    const stateDir = tempDir();
    const runId = "fix-20261129T0900-abcde";
    writeRunIssues(stateDir, {
      ...{ schedule: "fix", runId, source: { ...github, apiUrl: fake.url } },
      issues: [{ id: "1", ref: "#1", title: "Down", url: "u" }],
      ...{ takenAt: "2026-11-29T09:00:00Z", endedAt: "2026-11-29T09:00:00Z" },
      end: { kind: "failed", status: "failed" },
      ...{ commented: [], released: [], failures: 0 },
    });
    let now = NOW;
    const followUps = new IssueFollowUps({
      stateDir,
      now: () => now,
      runInLedger: () => undefined,
      env: { GITHUB_TOKEN: TOKEN },
    });
    await followUps.deliverDue(now);
    expect(readRunIssues(stateDir, runId)).toMatchObject({ failures: 1 });
    expect(listUntoldIssues(stateDir)).toEqual([]);
    now += 86_400_000;
    await followUps.deliverDue(now);
    expect(readRunIssues(stateDir, runId)).toBeUndefined();
    expect(listUntoldIssues(stateDir)).toEqual([
      {
        schedule: "fix",
        runId,
        tracker: "github octo/app",
        issues: ["octo/app#1"],
        error: expect.stringContaining("503"),
        fix: 'remove the label "autoloop:working" from octo/app#1 by hand, so that a later slot takes it again',
        at: new Date(now).toISOString(),
      },
    ]);
    expect(fake.problems).toEqual([]);
  });

  it("waits out the tracker's Retry-After rather than its own backoff", async () => {
    const stateDir = tempDir();
    const runId = "fix-20261129T0900-fghij";
    writeRunIssues(stateDir, {
      ...{ schedule: "fix", runId, source: github },
      issues: [{ id: "1", ref: "#1", title: "Busy", url: "u" }],
      ...{ takenAt: "2026-11-29T09:00:00Z", endedAt: "2026-11-29T09:00:00Z" },
      end: { kind: "completed" },
      ...{ commented: [], released: [], failures: 0 },
    });
    const refused = async () => {
      throw answer(503, { "retry-after": "3600" });
    };
    const tracker = { ready: async () => [], take: refused, marks: async () => [] };
    const followUps = new IssueFollowUps({
      stateDir,
      now: () => NOW,
      random: () => 0,
      runInLedger: () => undefined,
      env: { GITHUB_TOKEN: TOKEN },
      trackers: { github: () => ({ ...tracker, comment: refused, release: refused }) },
    });
    await followUps.deliverDue(NOW);
    expect(readRunIssues(stateDir, runId)?.nextAt).toBe(new Date(NOW + 3_600_000).toISOString());
  });
});
