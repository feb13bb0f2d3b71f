// Taking issues from GitLab through Gitbeaker against a loopback GitLab: the oldest ready
// issue, labelled and claimed in a note, backed off when another claim (by the same user) came
// first, released.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { gitlabIssues } from "../../src/tracker/gitlab-issues.js";
import { takeIssues } from "../../src/tracker/take.js";
import type { TrackerSource } from "../../src/tracker/tracker.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { FakeGitLab } from "../helpers/fake-gitlab.js";

const TOKEN = "glpat-issuetoken0123456789";
let gitlab: FakeGitLab;
afterEach(async () => {
  expect(gitlab.problems).toEqual([]);
  await gitlab.close();
});
afterAll(cleanupTempDirs);

async function world() {
  gitlab = await new FakeGitLab("group/app", TOKEN).start();
  const source: TrackerSource = {
    kind: "gitlab",
    repository: "group/app",
    apiUrl: gitlab.url,
    label: "agent-ready",
    workingLabel: "autoloop:working",
    doneLabel: "autoloop:done",
    limit: 1,
    token: { kind: "env", name: "GITLAB_TOKEN" },
  };
  return { source, tracker: gitlabIssues({ source, token: TOKEN }) };
}

describe("GitLab issues", () => {
  it("takes the oldest ready issue, then marks it done", async () => {
    const { source, tracker } = await world();
    gitlab.add("Busy", "", ["agent-ready", "autoloop:working"]);
    gitlab.add("Ready", "body");
    const take = await takeIssues(tracker, source, tempDir(), "fix-20260101T000000Z");
    expect(take).toMatchObject({ kind: "taken", issues: [{ id: "2", ref: "#2", body: "body" }] });
    expect(gitlab.issues[1]!.labels).toEqual(["agent-ready", "autoloop:working"]);
    expect(gitlab.issues[1]!.notes[0]).toContain("autoloop-cron:claim run=fix-20260101T000000Z");
    await tracker.release("2", true);
    expect(gitlab.issues[1]!.labels).toEqual(["agent-ready", "autoloop:done"]);
  });

  it("backs off an issue another daemon's note claimed first", async () => {
    const { source, tracker } = await world();
    gitlab.add("Only", "");
    await tracker.take("1", "elsewhere-20260101T000000Z");
    gitlab.issues[0]!.labels = ["agent-ready"];
    expect((await takeIssues(tracker, source, tempDir(), "here-20260101T000000Z")).kind).toBe(
      "none",
    );
  });

  it("ignores a claim note by another user: the run takes the issue", async () => {
    const { source, tracker } = await world();
    const issue = gitlab.add("Open to all", "");
    gitlab.plantNote(issue, "<!-- autoloop-cron:claim run=x -->", "mallory");
    const take = await takeIssues(tracker, source, tempDir(), "here-20260101T000000Z");
    expect(take).toMatchObject({ kind: "taken", issues: [{ id: "1" }] });
    expect(issue.noteAuthors).toEqual(["mallory", gitlab.username]);
  });
});
