// `deliver = { review = ... }`: its keys checked where they are written, forks refused unless
// allowed, and validate naming the review's token key when the daemon cannot read it.
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

function parsed(deliver: string) {
  const config = parseConfigText("autoloop-cron.toml", "", "/srv").config!;
  const text = `[[schedule]]\nname = "s"\ncron = "0 2 * * *"\npreset = "review"\nobjective = "o"\ndeliver = ${deliver}\n`;
  const file = parseScheduleFile("s.toml", text, scheduleDefaults(config), {
    fileDir: "/srv",
    configDir: "/srv",
  });
  return { problems: file.problems.map(formatProblem), schedule: file.schedules[0] };
}

describe("deliver = { review = ... }", () => {
  it("holds the review's settings: forks refused unless allow_forks", () => {
    const { schedule, problems } = parsed(
      '{ review = { forge = "gitlab", token_file = "/etc/t", report = "REVIEW.md" } }',
    );
    expect(problems).toEqual([]);
    expect(schedule?.deliver).toEqual({
      review: {
        remote: "origin",
        forge: "gitlab",
        token: { kind: "file", path: "/etc/t" },
        apiUrl: "https://gitlab.com",
        report: "REVIEW.md",
        allowForks: false,
      },
    });
    const allowed = parsed(
      '{ review = { forge = "github", token_env = "T", allow_forks = true } }',
    );
    expect(allowed.schedule?.deliver?.review?.allowForks).toBe(true);
  });

  it("names the field of a bad value, and asks for something to deliver", () => {
    expect(parsed('{ review = { forge = "github" } }').problems.join()).toContain(
      "exactly one of token_env or token_file",
    );
    expect(
      parsed(
        '{ review = { forge = "github", token_env = "T", allow_forks = "yes" } }',
      ).problems.join(),
    ).toContain("schedule[0].deliver.review.allow_forks");
    expect(parsed("{}").problems.join()).toContain("pull_request = { ... } or review = { ... }");
  });

  it("is checked by validate, which names the review's token key", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "schedules"));
    writeFileSync(join(dir, "autoloop-cron.toml"), "");
    writeFileSync(
      join(dir, "schedules", "a.toml"),
      `[[schedule]]\nname = "s"\ncron = "0 2 * * *"\nkind = "command"\ncommand = ["/bin/true"]\nproject_dir = "${dir}"\ndeliver = { review = { forge = "github", token_env = "NO_SUCH_REVIEW_TOKEN" } }\n`,
    );
    const report = validateAll(loadConfig("autoloop-cron.toml", dir));
    expect(report.warnings.map(formatProblem)).toEqual([
      expect.stringContaining(
        "schedule[0].deliver.review: found deliver.review on a command schedule; expected a preset schedule",
      ),
      expect.stringContaining(
        'schedule[0].deliver.review.token_env: found "NO_SUCH_REVIEW_TOKEN"; expected a forge token the daemon can read',
      ),
    ]);
  });
});
