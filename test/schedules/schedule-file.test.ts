import { describe, expect, it } from "vitest";
import { defaultConfig, parseConfigText } from "../../src/scheduler/config/config.js";
import {
  parseScheduleFile,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { formatProblem } from "../../src/util/errors.js";

const context = { fileDir: "/srv/cron/schedules", configDir: "/srv/cron" };
const defaults = scheduleDefaults(defaultConfig("/srv/cron"));

function parse(text: string | Uint8Array, d = defaults) {
  return parseScheduleFile("schedules/bad.toml", text, d, context);
}
const problems = (text: string) => parse(text).problems.map(formatProblem);

const entry = (extra: string) =>
  `[[schedule]]\nname = "nightly-fix"\ncron = "0 2 * * *"\npreset = "autofix"\nobjective = "Make the tests pass"\n${extra}`;

describe("parseScheduleFile", () => {
  it("resolves a full preset schedule", () => {
    const { schedules, problems: found } = parse(
      entry(`timezone = "Europe/Berlin"
project_dir = "../repos/app"
overlap = "queue"
timeout = "45m"
catch_up = "all"
catch_up_window = "12h"
jitter = "5m"
after = ["nightly-build"]
max_iterations = 30
env = { GIT_AUTHOR_NAME = "autoloop" }
alert = ["mail"]
enabled = false

[schedule.monitor]
gate_rejections = 5
stall_after = "10m"
`),
    );
    expect(found).toEqual([]);
    expect(schedules).toEqual([
      {
        name: "nightly-fix",
        file: "schedules/bad.toml",
        index: 0,
        cron: "0 2 * * *",
        timezone: "Europe/Berlin",
        jitterMs: 300_000,
        projectDir: "/srv/cron/repos/app",
        overlap: "queue",
        timeoutMs: 2_700_000,
        catchUp: { mode: "all", windowMs: 43_200_000 },
        after: ["nightly-build"],
        env: { GIT_AUTHOR_NAME: "autoloop" },
        alert: ["mail"],
        enabled: false,
        history: 3,
        monitor: {
          gateRejections: 5,
          gateGraceMs: 1_800_000,
          stallAfterMs: 600_000,
          missedGraceMs: 300_000,
          costFactor: 0,
          costRuns: 10,
        },
        kind: "preset",
        preset: "autofix",
        presetDir: undefined,
        objective: "Make the tests pass",
        maxIterations: 30,
        envFiles: [],
        sets: [],
      },
    ]);
  });

  it("resolves env_file paths (one or a list) beside the schedule file, for preset schedules only", () => {
    const one = parse(entry('env_file = "../secrets/claude.env"\n')).schedules[0];
    expect(one).toMatchObject({ envFiles: ["/srv/cron/secrets/claude.env"] });
    const two = parse(entry('env_file = ["/etc/a.env", "b.env"]\n')).schedules[0];
    expect(two).toMatchObject({ envFiles: ["/etc/a.env", "/srv/cron/schedules/b.env"] });
    expect(
      problems(
        '[[schedule]]\nname = "b"\ncron = "0 2 * * *"\nkind = "command"\ncommand = ["true"]\nenv_file = "x.env"\n',
      ),
    ).toEqual([
      'schedules/bad.toml: schedule[0].env_file: found "x.env"; expected no env_file when kind = "command" (put the variables in env, or run a preset)',
    ]);
  });

  it("fills omitted fields from [defaults] and [monitor], and reads command schedules", () => {
    const cfg = parseConfigText(
      "c.toml",
      '[defaults]\ntimezone = "America/New_York"\noverlap = "allow"\ncatch_up = "none"\n[monitor]\ngate_grace = "1h"',
      "/srv/cron",
    ).config!;
    const text = `[[schedule]]
name = "backup"
cron = "@daily"
kind = "command"
command = ["./backup.sh", "--all"]
`;
    const [s] = parse(text, scheduleDefaults(cfg)).schedules;
    expect(s).toMatchObject({
      kind: "command",
      command: ["./backup.sh", "--all"],
      timezone: "America/New_York",
      overlap: "allow",
      timeoutMs: 7_200_000,
      catchUp: { mode: "none", windowMs: 21_600_000 },
      jitterMs: 0,
      projectDir: "/srv/cron",
      alert: [],
      enabled: true,
      monitor: { gateRejections: 3, gateGraceMs: 3_600_000, stallAfterMs: 1_200_000 },
    });
  });

  it("resolves a preset written as a path against the schedule file's folder", () => {
    const [s] = parse(
      entry("").replace('preset = "autofix"', 'preset = "../presets/mine"'),
    ).schedules;
    expect(s).toMatchObject({ kind: "preset", preset: "/srv/cron/presets/mine" });
  });

  it("pins the message for a bad cron expression", () => {
    expect(problems(entry("").replace("0 2 * * *", "61 * * * *"))).toEqual([
      'schedules/bad.toml: schedule[0].cron: found "61 * * * *"; expected a cron expression of 5 or 6 fields ([second] minute hour day-of-month month day-of-week) or one of @hourly, @daily, @weekly, @monthly, @yearly (Invalid value for minute: 61)',
    ]);
    expect(problems(entry("").replace("0 2 * * *", "0 0 30 2 *"))).toEqual([
      'schedules/bad.toml: schedule[0].cron: found "0 0 30 2 *"; expected a cron expression of 5 or 6 fields ([second] minute hour day-of-month month day-of-week) or one of @hourly, @daily, @weekly, @monthly, @yearly (it never matches a date (check day and month))',
    ]);
  });

  it("pins messages for a bad zone, overlap, path-traversal name and typo", () => {
    const text = entry('timezone = "Mars/Base"\noverlap = "never"\ntimout = "2h"').replace(
      '"nightly-fix"',
      '"../x"',
    );
    expect(problems(text)).toEqual([
      'schedules/bad.toml: schedule[0].name: found "../x"; expected a name of lowercase letters, digits and "-", starting with a letter or digit, at most 63 characters',
      'schedules/bad.toml: schedule[0].timezone: found "Mars/Base"; expected an IANA time zone such as "UTC", "Europe/Berlin" or "America/New_York"',
      'schedules/bad.toml: schedule[0].overlap: found "never"; expected one of "skip", "queue", "replace", "allow"',
      'schedules/bad.toml: schedule[0].timout: found unknown key "timout"; expected a known key (did you mean "timeout"?)',
    ]);
  });

  it("pins messages for kind mismatches", () => {
    expect(problems('[[schedule]]\nname = "a"\ncron = "0 2 * * *"\ncommand = ["x"]')).toEqual([
      'schedules/bad.toml: schedule[0].preset: found nothing; expected a preset name or path (kind = "preset", the default)',
      'schedules/bad.toml: schedule[0].objective: found nothing; expected the objective for the preset (kind = "preset", the default)',
      'schedules/bad.toml: schedule[0].command: found ["x"]; expected no command when kind = "preset" (set kind = "command" to run a command)',
    ]);
    expect(
      problems('[[schedule]]\nname = "a"\ncron = "0 2 * * *"\nkind = "command"\npreset = "p"'),
    ).toEqual([
      'schedules/bad.toml: schedule[0].command: found nothing; expected a command array when kind = "command"',
      'schedules/bad.toml: schedule[0].preset: found "p"; expected no preset when kind = "command"',
    ]);
  });

  it("pins messages for env, jitter, monitor and a misspelt table", () => {
    expect(
      problems(
        entry('jitter = "-5m"\nenv = { "1X" = "a", B = 2 }\n[schedule.monitor]\nstall = "1m"'),
      ),
    ).toEqual([
      'schedules/bad.toml: schedule[0].jitter: found "-5m"; expected a duration such as "90s", "20m", "2h", "1d" or "1h30m"',
      'schedules/bad.toml: schedule[0].env.1X: found key "1X"; expected an environment variable name',
      "schedules/bad.toml: schedule[0].env.B: found 2; expected a string",
      'schedules/bad.toml: schedule[0].monitor.stall: found unknown key "stall"; expected one of the known keys: gate_rejections, gate_grace, stall_after, missed_grace, cost_factor, cost_runs',
    ]);
    expect(problems('[schedules]\nname = "a"')).toEqual([
      'schedules/bad.toml: schedules: found unknown key "schedules"; expected a known key (did you mean "schedule"?)',
    ]);
  });

  it("yields no schedules from a file with any problem, and names TOML syntax errors", () => {
    const good = entry("");
    const bad = `${good}\n[[schedule]]\nname = "b"\ncron = "nope"\npreset = "p"\nobjective = "o"\n`;
    expect(parse(good).schedules).toHaveLength(1);
    expect(parse(bad).schedules).toEqual([]);
    expect(parse(bad).problems.map((p) => p.field)).toEqual(["schedule[1].cron"]);
    expect(problems('[[schedule]]\nname = "a\n')).toEqual([
      // A string left open is named as such, not as smol-toml's "control characters".
      'schedules/bad.toml: line 2: found a string that is not closed on its line; expected a closing quote (") before the end of the line, or """ for a multi-line string',
    ]);
  });

  it("accepts an empty file as no schedules", () => {
    expect(parse("")).toEqual({ schedules: [], problems: [] });
  });

  it("checks a long file in chunks: every schedule in order, or every problem and none", () => {
    const many = (bad: Set<number>) =>
      Array.from(
        { length: 450 },
        (_, i) =>
          `[[schedule]]\nname = "job-${i}"\ncron = "${bad.has(i) ? "nope" : `${i % 60} * * * *`}"\nkind = "command"\ncommand = ["true"]\n`,
      ).join("\n");
    const ok = parseScheduleFile("s.toml", many(new Set()), defaults, context);
    expect(ok.problems).toEqual([]);
    expect(ok.schedules.map((s) => [s.name, s.index, s.cron])).toEqual(
      Array.from({ length: 450 }, (_, i) => [`job-${i}`, i, `${i % 60} * * * *`]),
    );
    const bad = parseScheduleFile("s.toml", many(new Set([5, 333, 449])), defaults, context);
    expect(bad.schedules).toEqual([]);
    expect(bad.problems.map((p) => p.field)).toEqual([
      "schedule[5].cron",
      "schedule[333].cron",
      "schedule[449].cron",
    ]);
  });
});

describe("hostile schedule files", () => {
  it("refuses an objective too long for one argument, without echoing all of it", () => {
    const found = problems(
      entry("").replace(
        'objective = "Make the tests pass"',
        `objective = "${"x".repeat(200_000)}"`,
      ),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      /^schedules\/bad\.toml: schedule\[0\]\.objective: found "x{20,}\.\.\.; expected an objective of at most 100 KB: the harness gets it as one argument, and Linux refuses longer ones \(E2BIG\)/,
    );
    expect(found[0]!.length).toBeLessThan(400);
  });

  it("refuses a file that is not UTF-8, naming the line", () => {
    const latin1 = Buffer.from(`${entry("")}# caf\xe9\n`, "latin1");
    expect(parse(latin1).problems.map(formatProblem)).toEqual([
      `schedules/bad.toml: line 6: found bytes that are not UTF-8 (byte ${latin1.indexOf(0xe9)} of the file); expected a UTF-8 text file, as TOML requires (convert it, e.g. \`iconv -f latin1 -t utf-8\`)`,
    ]);
  });
});
