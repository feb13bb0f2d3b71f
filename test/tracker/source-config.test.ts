// `source`: its keys checked where they are written, the token by reference only, and
// `validate` naming the token it cannot read.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig, parseConfigText } from "../../src/scheduler/config/config.js";
import {
  parseScheduleFile,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { validateAll } from "../../src/scheduler/schedules/validate.js";
import { formatProblem } from "../../src/util/errors.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterAll(cleanupTempDirs);

function parsed(source: string) {
  const config = parseConfigText("autoloop-cron.toml", "", "/srv").config!;
  const text = `[[schedule]]\nname = "s"\ncron = "0 2 * * *"\npreset = "p"\nobjective = "o"\nsource = ${source}\n`;
  const file = parseScheduleFile("s.toml", text, scheduleDefaults(config), {
    fileDir: "/srv",
    configDir: "/srv",
  });
  return { problems: file.problems.map(formatProblem), schedule: file.schedules[0] };
}

describe("source = { github_issues | gitlab_issues | linear_issues = ... }", () => {
  it("holds GitHub's issues with the labels and the token variable by default", () => {
    const { schedule, problems } = parsed('{ github_issues = { repo = "octo/app" } }');
    expect(problems).toEqual([]);
    expect(schedule?.source).toEqual({
      kind: "github",
      repository: "octo/app",
      apiUrl: "https://api.github.com",
      label: "agent-ready",
      workingLabel: "autoloop:working",
      doneLabel: "autoloop:done",
      limit: 1,
      token: { kind: "env", name: "GITHUB_TOKEN" },
    });
  });

  it("reads Linear's key from LINEAR_API_KEY unless told otherwise", () => {
    const { schedule } = parsed('{ linear_issues = { team = "ENG" } }');
    expect(schedule?.source).toMatchObject({
      kind: "linear",
      state: "Todo",
      token: { kind: "env", name: "LINEAR_API_KEY" },
    });
  });

  it("refuses two trackers, a token in the file, both token keys, and names the field", () => {
    expect(
      parsed(
        '{ github_issues = { repo = "o/a" }, linear_issues = { team = "E" } }',
      ).problems.join(),
    ).toContain("exactly one of github_issues, gitlab_issues or linear_issues");
    expect(
      parsed('{ github_issues = { repo = "o/a", token = "ghp_x" } }').problems.join(),
    ).toContain("schedule[0].source.github_issues");
    expect(
      parsed(
        '{ github_issues = { repo = "o/a", token_env = "A", token_file = "/t" } }',
      ).problems.join(),
    ).toContain("at most one of token_env or token_file");
    expect(parsed('{ github_issues = { repo = "octo" } }').problems.join()).toContain(
      "schedule[0].source.github_issues.repo",
    );
  });
});

describe("validate and source's token", () => {
  it("warns of a token this environment cannot read, naming the key and the variable", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "schedules"));
    writeFileSync(join(dir, "autoloop-cron.toml"), "");
    writeFileSync(
      join(dir, "schedules", "a.toml"),
      `[[schedule]]\nname = "s"\ncron = "0 2 * * *"\nkind = "command"\ncommand = ["/bin/true"]\nproject_dir = "${dir}"\nsource = { github_issues = { repo = "o/a", token_env = "NO_SUCH_TRACKER_TOKEN" } }\n`,
    );
    const report = validateAll(loadConfig("autoloop-cron.toml", dir));
    expect(report.problems).toEqual([]);
    expect(report.warnings.map(formatProblem)).toEqual([
      expect.stringContaining(
        'schedule[0].source.github_issues.token_env: found "NO_SUCH_TRACKER_TOKEN"; expected a tracker token the daemon can read',
      ),
    ]);
  });
});
