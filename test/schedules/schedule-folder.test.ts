// The folder of schedule files: a big folder's files are parsed a hundred tables per step,
// with the same schedules as a whole-file parse.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseScheduleFile, scheduleDefaults } from "../../src/schedules/schedule-file.js";
import {
  parsesInPieces,
  scheduleFileSteps,
  TOML_IN_PIECES_ABOVE,
} from "../../src/schedules/schedule-folder.js";
import { fileVersion } from "../../src/util/file-signature.js";
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
  it("parses a folder over the threshold in pieces, to the same schedules", () => {
    const dir = tempDir();
    const config = writeCronConfig(dir, "");
    rmSync(join(dir, "schedules", "test.toml"));
    const texts = [file(0, 1000), file(1000, 1000)];
    for (const [i, t] of texts.entries()) writeFileSync(join(dir, "schedules", `f${i}.toml`), t);
    const small = count(scheduleFileSteps(config, undefined, true));
    const versions = (names: string[]) => names.map((n) => fileVersion(join(dir, "schedules", n)));
    expect(parsesInPieces(versions(["f0.toml", "f1.toml"]))).toBe(false);
    // The same two files, and enough others to pass the threshold.
    const filler = file(2000, 1000);
    const copies = Math.ceil(TOML_IN_PIECES_ABOVE / Buffer.byteLength(filler));
    for (let i = 0; i < copies; i++)
      writeFileSync(
        join(dir, "schedules", `z${i}.toml`),
        filler.replaceAll('name = "job-', `name = "copy${i}-`),
      );
    const big = count(scheduleFileSteps(config, undefined, true));
    // Run to the end at once (`validate`), nothing is gained by pieces: whole files.
    const atOnce = count(scheduleFileSteps(config));
    expect(atOnce.value.schedules).toEqual(big.value.schedules);
    expect(atOnce.steps).toBeLessThan((2 + copies) * 22);
    expect(big.value.problems).toEqual([]);
    const context = { fileDir: join(dir, "schedules"), configDir: dir };
    const whole = texts.flatMap(
      (t, i) =>
        parseScheduleFile(`schedules/f${i}.toml`, t, scheduleDefaults(config), context).schedules,
    );
    expect(small.value.schedules).toEqual(whole);
    expect(big.value.schedules.slice(0, 2000)).toEqual(whole);
    expect(big.value.schedules).toHaveLength(2000 + copies * 1000);
    const names = [...texts.keys()].map((i) => `f${i}.toml`);
    for (let i = 0; i < copies; i++) names.push(`z${i}.toml`);
    expect(parsesInPieces(versions(names))).toBe(true);
    // In pieces, each 1,000-entry file's TOML takes ten steps or more, its checks at least ten more
    // (fewer entries per step while they run slowly) and two: at least 22 a file. Whole, the
    // TOML takes none of its own and warm checks ~10-15.
    expect(big.steps).toBeGreaterThanOrEqual((2 + copies) * 22);
  });
});
