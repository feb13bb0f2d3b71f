// The daemon's loads parse schedule files' TOML in a worker thread: the same schedules as a
// parse on the main thread, and a file the worker could not parse, or saw in another version,
// is read again on the main thread (where its problem is worded).
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { filesToRead, scheduleFileSteps } from "../../src/schedules/schedule-folder.js";
import { parseInWorker } from "../../src/schedules/toml-worker.js";
import { runSteps } from "../../src/util/steps.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { writeCronConfig } from "../helpers/daemon.js";

afterEach(cleanupTempDirs);

const entry = (name: string, cron: string) =>
  `[[schedule]]\nname = "${name}"\ncron = "${cron}"\nkind = "command"\ncommand = ["/bin/true"]\nproject_dir = "../work"\n`;

describe("schedule files parsed in a worker thread", () => {
  it("gives the main thread's schedules; a bad or changed file is read on the main thread", async () => {
    const dir = tempDir();
    const config = writeCronConfig(dir, "");
    const folder = join(dir, "schedules");
    rmSync(join(folder, "test.toml"));
    writeFileSync(join(folder, "a.toml"), entry("a1", "0 1 * * *") + entry("a2", "0 2 * * *"));
    writeFileSync(join(folder, "b.toml"), entry("b1", "0 3 * * *"));
    writeFileSync(join(folder, "c.toml"), 'name = "unclosed\n');
    const paths = filesToRead(config, undefined);
    expect(paths.map((p) => p.slice(folder.length + 1))).toEqual(["a.toml", "b.toml", "c.toml"]);
    const parsed = await parseInWorker(paths);
    expect([...parsed.keys()].map((p) => p.slice(folder.length + 1))).toEqual(["a.toml", "b.toml"]);
    const inline = runSteps(scheduleFileSteps(config));
    expect(runSteps(scheduleFileSteps(config, undefined, parsed))).toEqual(inline);
    expect(inline.problems.map((p) => `${p.file} ${p.field}`)).toEqual(["schedules/c.toml line 1"]);
    // b.toml changes after the worker read it: its new version is read. (A load takes the
    // parsed tables it is given, as it does the ones it parses: each map serves one load.)
    const again = await parseInWorker(paths);
    writeFileSync(join(folder, "b.toml"), entry("b1", "30 3 * * *") + entry("b2", "0 4 * * *"));
    const loaded = runSteps(scheduleFileSteps(config, undefined, again));
    expect(loaded.schedules.map((s) => `${s.name} ${s.cron}`)).toEqual([
      "a1 0 1 * * *",
      "a2 0 2 * * *",
      "b1 30 3 * * *",
      "b2 0 4 * * *",
    ]);
  });
});
