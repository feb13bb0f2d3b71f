// A schedule's `set`: the preset's keys for its runs (another agent, fewer iterations) without
// copying the preset, passed as the harness's `--set`, and checked against the preset when the
// schedules are validated.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/scheduler/config/config.js";
import { launchSpecFor } from "../../src/scheduler/launch/schedule-spec.js";
import { launchArgv } from "../../src/scheduler/launch/spec.js";
import {
  parseScheduleFile,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { formatProblem } from "../../src/util/errors.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { writeCronConfig } from "../helpers/daemon.js";
import { field, journalOf } from "../helpers/journal.js";

afterEach(cleanupTempDirs);

const context = { fileDir: "/srv/cron/schedules", configDir: "/srv/cron" };
const config = defaultConfig("/srv/cron");
const entry = (extra: string) =>
  `[[schedule]]\nname = "nightly"\ncron = "0 2 * * *"\npreset = "autofix"\nobjective = "x"\n${extra}`;

describe("a schedule's set", () => {
  it("becomes --set arguments of the harness, values in TOML", () => {
    const { schedules, problems } = parseScheduleFile(
      "s.toml",
      entry(
        'set = { "backend.command" = "codex", "event_loop.max_iterations" = 8, "backend.args" = ["-m", "gpt-5-codex"] }\n',
      ),
      scheduleDefaults(config),
      context,
    );
    expect(problems).toEqual([]);
    const argv = launchArgv(launchSpecFor(config, schedules[0]!, "nightly-1", new Date()));
    expect(argv).toContain('backend.command="codex"');
    const at = argv.indexOf("event_loop.max_iterations=8");
    expect(argv[at - 1]).toBe("--set");
    expect(argv).toContain('backend.args=["-m","gpt-5-codex"]');
  });

  it("is refused on a command schedule, and with a key that is not a dotted name", () => {
    const command =
      '[[schedule]]\nname = "c"\ncron = "0 2 * * *"\nkind = "command"\ncommand = ["true"]\nset = { "a.b" = 1 }\n';
    const parsed = parseScheduleFile("s.toml", command, scheduleDefaults(config), context);
    expect(parsed.problems.map(formatProblem).join("\n")).toContain("schedule[0].set: found");
    const bad = parseScheduleFile(
      "s.toml",
      entry('set = { "not a key" = 1 }\n'),
      scheduleDefaults(config),
      context,
    );
    expect(bad.problems.map(formatProblem).join("\n")).toContain(
      'a dotted preset key such as "backend.command"',
    );
  });

  it("is checked against the preset by validate, and reaches the run", async () => {
    const dir = tempDir("autoloop-set-");
    const schedule = (name: string, set: string) =>
      `[[schedule]]\nname = "${name}"\ncron = "0 3 * * *"\npreset = "demo"\nobjective = "x"\nproject_dir = "../work"\nset = { ${set} }\n`;
    writeCronConfig(dir, schedule("one-iteration", '"event_loop.max_iterations" = 1'));
    const cron = (...args: string[]) =>
      execa(
        process.execPath,
        [AUTOLOOP_CRON, ...args, "--config", join(dir, "autoloop-cron.toml")],
        {
          env: cleanEnv(),
          extendEnv: false,
          reject: false,
        },
      );
    const fired = await cron("fire", "one-iteration", "--foreground");
    expect(fired.exitCode, fired.stderr).toBe(3);
    expect(field(journalOf(join(dir, "work")).at(-1), "reason")).toBe("max_iterations");
    writeFileSync(
      join(dir, "schedules", "test.toml"),
      schedule("bad-set", '"event_loop.max_iterations" = "many"'),
    );
    const validated = await cron("validate");
    expect(validated.exitCode).toBe(1);
    expect(validated.stdout + validated.stderr).toContain("schedule[0].set");
    expect(validated.stdout + validated.stderr).toContain("event_loop.max_iterations");
  }, 60_000);
});
