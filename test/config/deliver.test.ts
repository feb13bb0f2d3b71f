// `deliver`: its keys checked where they are written, with errors naming the field and the fix.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, parseConfigText } from "../../src/scheduler/config/config.js";
import {
  parseScheduleFile,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { checkScheduleSteps, validateAll } from "../../src/scheduler/schedules/validate.js";
import { formatProblem } from "../../src/util/errors.js";
import { runSteps } from "../../src/util/steps.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

function problems(deliver: string) {
  const config = parseConfigText("autoloop-cron.toml", "", "/srv").config!;
  const text = `[[schedule]]\nname = "s"\ncron = "0 2 * * *"\npreset = "p"\nobjective = "o"\ndeliver = ${deliver}\n`;
  const file = parseScheduleFile("s.toml", text, scheduleDefaults(config), {
    fileDir: "/srv",
    configDir: "/srv",
  });
  return {
    problems: file.problems.map((p) => `${p.field}: ${p.expected}`),
    schedule: file.schedules[0],
  };
}

describe("deliver = { pull_request = ... }", () => {
  it("holds the pull request's settings, with GitHub's API by default", () => {
    const { schedule, problems: found } = problems(
      '{ pull_request = { forge = "github", token_env = "GH_TOKEN" } }',
    );
    expect(found).toEqual([]);
    expect(schedule?.deliver?.pullRequest).toEqual({
      remote: "origin",
      forge: "github",
      labels: [],
      draft: false,
      reviewers: [],
      token: { kind: "env", name: "GH_TOKEN" },
      apiUrl: "https://api.github.com",
    });
  });

  it("asks for exactly one token reference, never a token in the file", () => {
    expect(problems('{ pull_request = { forge = "github" } }').problems).toEqual([
      expect.stringContaining("exactly one of token_env or token_file"),
    ]);
    expect(
      problems('{ pull_request = { forge = "github", token = "ghp_x" } }').problems.join(),
    ).toContain("token");
  });

  it("names the field of a bad value and what it takes", () => {
    expect(
      problems('{ pull_request = { forge = "bitbucket", token_env = "T" } }').problems.join(),
    ).toContain("schedule[0].deliver.pull_request.forge");
    expect(
      problems('{ pull_request = { forge = "gitea", token_env = "T" } }').problems.join(),
    ).toContain('api_url for forge "gitea"');
    expect(
      problems('{ pull_request = { forge = "github", token_file = "rel/t" } }').problems.join(),
    ).toContain("an absolute path");
  });
});

describe("validate and deliver's token", () => {
  it("warns of a token this environment cannot read, naming the key and the variable", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "schedules"));
    writeFileSync(join(dir, "autoloop-cron.toml"), "");
    writeFileSync(
      join(dir, "schedules", "a.toml"),
      `[[schedule]]\nname = "s"\ncron = "0 2 * * *"\nkind = "command"\ncommand = ["/bin/true"]\nproject_dir = "${dir}"\ndeliver = { pull_request = { forge = "github", token_env = "NO_SUCH_FORGE_TOKEN" } }\n`,
    );
    const report = validateAll(loadConfig("autoloop-cron.toml", dir));
    expect(report.problems).toEqual([]);
    expect(report.warnings.map(formatProblem)).toEqual([
      expect.stringContaining(
        'schedule[0].deliver.pull_request.token_env: found "NO_SUCH_FORGE_TOKEN"; expected a forge token the daemon can read',
      ),
    ]);
    cleanupTempDirs();
  });

  it("warns that a schedule whose runs share the checkout has no branch to deliver", () => {
    const config = parseConfigText("autoloop-cron.toml", "", "/srv").config!;
    const text = `[[schedule]]\nname = "s"\ncron = "0 2 * * *"\npreset = "autofix"\nobjective = "o"\nisolation = "shared"\ndeliver = { pull_request = { forge = "github", token_env = "PATH" } }\n`;
    const file = parseScheduleFile("s.toml", text, scheduleDefaults(config), {
      fileDir: "/srv",
      configDir: "/srv",
    });
    const report = runSteps(checkScheduleSteps(file.schedules, config, new Map(), () => false));
    expect(report.warnings.map(formatProblem)).toContainEqual(
      expect.stringContaining('schedule[0].isolation: found "shared"; expected worktree runs'),
    );
  });
});
