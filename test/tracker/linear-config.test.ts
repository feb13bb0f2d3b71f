// `source = { linear_issues = ... }`: what `validate` says of its keys and its key's variable,
// and how a pull request names the issues it closes (`Fixes ENG-12`, Linear's magic word).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { issueBranchOf } from "../../src/delivery/issue-branch.js";
import { loadConfig } from "../../src/scheduler/config/config.js";
import { validateAll } from "../../src/scheduler/schedules/validate.js";
import { readRunIssues, writeRunIssues } from "../../src/tracker/run-issues.js";
import { describeSource } from "../../src/tracker/take.js";
import { formatProblem } from "../../src/util/errors.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterAll(cleanupTempDirs);

function validated(linear: string) {
  const dir = tempDir();
  mkdirSync(join(dir, "schedules"));
  writeFileSync(join(dir, "autoloop-cron.toml"), "");
  writeFileSync(
    join(dir, "schedules", "a.toml"),
    `[[schedule]]\nname = "s"\ncron = "0 2 * * *"\nkind = "command"\ncommand = ["/bin/true"]\nproject_dir = "${dir}"\nsource = { linear_issues = { team = "ENG"${linear} } }\n`,
  );
  const report = validateAll(loadConfig("autoloop-cron.toml", dir));
  return {
    problems: report.problems.map(formatProblem),
    warnings: report.warnings.map(formatProblem),
  };
}

describe("validate and linear_issues", () => {
  it("names the variable of a key it cannot read", () => {
    const { problems, warnings } = validated(', token_env = "NO_SUCH_LINEAR_KEY"');
    expect(problems).toEqual([]);
    expect(warnings).toEqual([
      expect.stringContaining(
        'schedule[0].source.linear_issues.token_env: found "NO_SUCH_LINEAR_KEY"; expected a tracker token the daemon can read',
      ),
    ]);
  });

  it("refuses one state for two steps, and a key sent over plain http", () => {
    const same = validated(', state = "Todo", working_state = "Todo", token_file = "/k"');
    expect(same.problems.join()).toContain(
      "state, working_state and done_state naming three different workflow states",
    );
    const plain = validated(', api_url = "http://linear.example/graphql", token_file = "/k"');
    expect(plain.problems).toEqual([
      expect.stringContaining(
        'schedule[0].source.linear_issues.api_url: found "http://linear.example/graphql"; expected an https URL',
      ),
    ]);
  });
});

describe("a pull request closing Linear issues", () => {
  it("names each by its identifier after Linear's magic word", () => {
    const stateDir = tempDir();
    writeRunIssues(stateDir, {
      ...{ schedule: "fix", runId: "fix-20260101T000000Z", takenAt: "2026-01-01T00:00:00Z" },
      source: {
        kind: "linear",
        repository: "ENG",
        apiUrl: "https://api.linear.app/graphql",
        state: "Todo",
        workingState: "In Progress",
        doneState: "In Review",
        limit: 2,
        token: { kind: "env", name: "LINEAR_API_KEY" },
      },
      issues: [
        { id: "a", ref: "ENG-12", title: "t", url: "u" },
        { id: "b", ref: "ENG-13", title: "t", url: "u" },
      ],
      commented: [],
      released: [],
      failures: 0,
    });
    expect(issueBranchOf(readRunIssues(stateDir, "fix-20260101T000000Z"))).toEqual({
      kind: "branch",
      key: "eng-12-eng-13",
      closes: ["Fixes ENG-12", "Fixes ENG-13"],
    });
    const source = readRunIssues(stateDir, "fix-20260101T000000Z")!.source;
    // What runs and messages call the source: the label too, when ready issues need one.
    expect(describeSource({ ...source, label: "agent" })).toBe(
      'linear ENG (state "Todo", label "agent")',
    );
  });
});
