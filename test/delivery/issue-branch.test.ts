// A run of a schedule with `source` delivers to its issue's branch (`autoloop/<schedule>/issue-42`)
// and pull request, in a lane (and push lease) of that issue's own; names git takes as refs.
import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  branchConflict,
  deliveryBranch,
  issueBranchOf,
  issueKeyPart,
} from "../../src/delivery/issue-branch.js";
import { type DeliveryJob, deliveryLane, replayDeliveries } from "../../src/delivery/record.js";
import type { RunIssues } from "../../src/tracker/run-issues.js";
import type { TrackerKind } from "../../src/tracker/tracker.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { git } from "../helpers/git.js";

afterAll(cleanupTempDirs);

function taken(kind: TrackerKind, issues: Array<{ id: string; ref: string }>): RunIssues {
  return {
    schedule: "fix-bugs",
    runId: "fix-bugs-20261129T1200-abcde",
    source: {
      kind,
      repository: kind === "linear" ? "ENG" : "octo/app",
      apiUrl: "https://api.example",
      limit: 3,
      token: { kind: "env", name: "TOKEN" },
    },
    issues: issues.map((i) => ({ ...i, title: "t", url: "https://example/i" })),
    takenAt: "2026-11-29T12:00:00.000Z",
    commented: [],
    released: [],
    failures: 0,
  };
}

const validRef = (branch: string) => {
  try {
    execFileSync("git", ["check-ref-format", `refs/heads/${branch}`]);
    return true;
  } catch {
    return false;
  }
};

describe("an issue's branch", () => {
  it("is the schedule's branch with the issue's key beneath it", () => {
    const one = issueBranchOf(taken("github", [{ id: "42", ref: "#42" }]));
    expect(one).toEqual({ kind: "branch", key: "issue-42", closes: ["Closes octo/app#42"] });
    expect(deliveryBranch("fix-bugs", "issue-42")).toBe("autoloop/fix-bugs/issue-42");
    expect(deliveryBranch("fix-bugs")).toBe("autoloop/fix-bugs");
    expect(issueKeyPart("gitlab", { id: "7", ref: "#7" })).toBe("issue-7");
    expect(issueKeyPart("linear", { id: "9f1c-uuid", ref: "ENG-12" })).toBe("eng-12");
    const two = issueBranchOf(
      taken("github", [
        { id: "42", ref: "#42" },
        { id: "43", ref: "#43" },
      ]),
    );
    expect(two).toMatchObject({ key: "issue-42-issue-43" });
    for (const key of ["issue-42", "eng-12", "issue-42-issue-43"])
      expect(validRef(deliveryBranch("fix-bugs", key))).toBe(true);
  });

  it("is none for a run whose take the daemon has no record of, or a ref git cannot take", () => {
    expect(issueBranchOf(undefined)).toMatchObject({ kind: "none", why: /no record/ });
    const odd = issueBranchOf(taken("linear", [{ id: "x", ref: "ENG..12~^" }]));
    expect(odd).toMatchObject({ kind: "none" });
    expect(odd.kind === "none" && odd.why).toContain(
      "ENG..12~^ of linear ENG cannot name a branch",
    );
  });

  it("says which branch to delete when the schedule's own and an issue's collide", () => {
    // What git itself says, pushing an issue's branch beside the schedule's.
    const dir = tempDir();
    git(dir, "init", "--quiet", "--bare", "remote.git");
    git(dir, "init", "--quiet", "work");
    git(join(dir, "work"), "commit", "--quiet", "--allow-empty", "-m", "one");
    git(join(dir, "work"), "push", "--quiet", "../remote.git", "HEAD:refs/heads/autoloop/fix-bugs");
    const pushed = spawnSync(
      "git",
      ["push", "../remote.git", "HEAD:refs/heads/autoloop/fix-bugs/issue-1"],
      { cwd: join(dir, "work"), encoding: "utf8" },
    );
    expect(pushed.status).not.toBe(0);
    expect(branchConflict(pushed.stderr, "autoloop/fix-bugs/issue-1")).toContain(
      "delete the other one on the remote",
    );
    expect(branchConflict("git push origin: timed out", "autoloop/fix-bugs/issue-1")).toBe(
      undefined,
    );
  });
});

describe("an issue's lane", () => {
  const job = (runId: string, sha: string, issueKey?: string): DeliveryJob => ({
    schedule: "fix-bugs",
    runId,
    repoDir: "/srv/app",
    sha: sha.repeat(40),
    branch: deliveryBranch("fix-bugs", issueKey),
    ...(issueKey !== undefined && { issueKey }),
    remote: "origin",
    forge: "github",
    apiUrl: "https://api.github.com",
    token: { kind: "env", name: "TOKEN" },
    title: "t",
    body: "b",
    draft: false,
    labels: [],
    reviewers: [],
  });

  it("keeps each issue's delivery and push lease apart from the others'", () => {
    expect(deliveryLane(job("r1", "a"))).toBe("fix-bugs");
    expect(deliveryLane(job("r1", "a", "issue-1"))).toBe("fix-bugs/issue-1");
    const at = "2026-11-29T12:00:00.000Z";
    const state = replayDeliveries([
      { type: "enqueued", id: "r1", at, job: job("r1", "a", "issue-1") },
      { type: "pushed", id: "r1", at, sha: "a".repeat(40) },
      { type: "enqueued", id: "r2", at, job: job("r2", "b", "issue-2") },
      { type: "pushed", id: "r2", at, sha: "b".repeat(40) },
    ]);
    expect(state.lastPushed.get("fix-bugs/issue-1")).toBe("a".repeat(40));
    expect(state.lastPushed.get("fix-bugs/issue-2")).toBe("b".repeat(40));
    expect(state.lastPushed.has("fix-bugs")).toBe(false);
  });
});
