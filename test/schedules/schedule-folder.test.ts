// The folder of schedule files: a big folder's files are parsed a hundred tables per step,
// with the same schedules as a whole-file parse.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  parseScheduleFile,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { scheduleFileSteps } from "../../src/scheduler/schedules/schedule-folder.js";
import type { Steps } from "../../src/util/steps.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { writeCronConfig } from "../helpers/daemon.js";

afterEach(cleanupTempDirs);

function count<T>(steps: Steps<T>): { value: T; steps: number } {
  for (let n = 0; ; n++) {
    const r = steps.next();
    if (r.done) return { value: r.value, steps: n };
  }
}

const file = (from: number, n: number) => {
  let text = "# one team's schedules\n";
  for (let i = from; i < from + n; i++)
    text += `[[schedule]]\nname = "job-${i}"\ncron = "${i % 60} ${i % 24} * * *"\nkind = "command"\ncommand = ["/bin/true", "${"x".repeat(40)}"]\nproject_dir = "../work"\n${i % 7 === 0 ? `[schedule.env]\nN = "${i}"\n` : ""}\n`;
  return text;
};

describe("scheduleFileSteps", () => {
  it("loads a folder in steps, a file or more each, to the schedules of whole-file parses", () => {
    const dir = tempDir();
    const config = writeCronConfig(dir, "");
    rmSync(join(dir, "schedules", "test.toml"));
    const texts = [file(0, 1000), file(1000, 1000)];
    for (const [i, t] of texts.entries()) writeFileSync(join(dir, "schedules", `f${i}.toml`), t);
    const loaded = count(scheduleFileSteps(config));
    expect(loaded.value.problems).toEqual([]);
    const context = { fileDir: join(dir, "schedules"), configDir: dir };
    const whole = texts.flatMap(
      (t, i) =>
        parseScheduleFile(`schedules/f${i}.toml`, t, scheduleDefaults(config), context).schedules,
    );
    expect(loaded.value.schedules).toEqual(whole);
    // A step for the stats, and each file's entries checked in chunks of at most 100.
    expect(loaded.steps).toBeGreaterThanOrEqual(1 + 2 * 10);
  });
});
