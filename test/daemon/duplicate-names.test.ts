// A new schedule file reusing a name in force does not take the schedule over: the running
// daemon keeps it and reports the newcomer invalid, and `validate` says the same.
import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { validateAll } from "../../src/scheduler/schedules/validate.js";
import { formatProblem } from "../../src/util/errors.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger, writeCronConfig } from "../helpers/daemon.js";

afterEach(cleanupTempDirs);

const nightly = (cron: string) =>
  `[[schedule]]\nname = "nightly"\ncron = "${cron}"\nkind = "command"\ncommand = ["true"]\nproject_dir = "../work"\n`;

describe("a schedule name reused by a new file", () => {
  it("stays with the file in force, in the daemon and in validate", async () => {
    const dir = tempDir("autoloop-dup-");
    const config = writeCronConfig(dir, nightly("0 2 * * *"));
    const daemon = new SchedulerDaemon(config, { logger: silentLogger });
    try {
      await daemon.reload();
      expect(daemon.schedules.get("nightly")?.file).toBe("schedules/test.toml");
      // The newcomer sorts first and even looks older: neither may steal the name.
      const newcomer = join(dir, "schedules", "a-newcomer.toml");
      writeFileSync(newcomer, nightly("0 3 * * *"));
      const old = new Date(Date.now() - 86_400_000);
      utimesSync(newcomer, old, old);
      await daemon.reload();
      expect(daemon.schedules.get("nightly")?.cron).toBe("0 2 * * *");
      const expected =
        'schedules/a-newcomer.toml: schedule[0].name: found "nightly"; expected a name no other schedule has (schedules/test.toml: schedule[0] has it, and is in force); rename this one';
      expect(daemon.invalidProblems.map(formatProblem)).toEqual([expected]);
      expect(validateAll(config).problems.map(formatProblem)).toEqual([expected]);
    } finally {
      await daemon.shutdown();
    }
  });
});
