// Issue authors choose how long their text is: a run that takes several long issues gets them
// all in its objective, which travels as one argument (Linux refuses one past 128 KiB, E2BIG).
// Three issues of 16,000 three-byte characters each, taken by one run, must not keep it from
// starting: a slot that cannot spawn gives its issues back, and the next slot takes them again.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startIssueFollowUps } from "../../src/app/issues.js";
import { loadConfig } from "../../src/scheduler/config/config.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger, startDaemon, writeCronConfig } from "../helpers/daemon.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { waitFor } from "../helpers/wait.js";

const TOKEN = "ghp_trackertoken0123456789";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

// The harness: keeps the size of the objective it was given, and completes.
const HARNESS = `
const objective = process.argv.find((a) => a.includes("<<<ISSUE"));
require("node:fs").writeFileSync("objective-bytes", String(Buffer.byteLength(objective ?? "")));
`;

describe("issues whose text is long", () => {
  it("fit the run's objective: the run starts", async () => {
    const dir = tempDir("autoloop-issue-size-");
    const github = await new FakeGitHub("octo", "app", TOKEN).start();
    closers.push(() => github.close());
    writeFileSync(join(dir, "harness.js"), HARNESS);
    const harness = `harness = [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(dir, "harness.js"))}]\n`;
    const schedule = `[[schedule]]\nname = "fix"\ncron = "* * * * * *"\npreset = "demo"\nobjective = "Fix them."\nproject_dir = "../work"\nsource = { github_issues = { repo = "octo/app", api_url = "${github.url}", limit = 3, token_env = "GH_ISSUES" } }\n`;
    writeCronConfig(dir, schedule);
    const file = join(dir, "autoloop-cron.toml");
    writeFileSync(file, harness + readFileSync(file, "utf8"));
    for (const n of [1, 2, 3]) github.add(`Issue ${n}`, "字".repeat(16_000));
    process.env.GH_ISSUES = TOKEN;
    const daemon = await startDaemon(loadConfig(file));
    const issues = startIssueFollowUps(daemon, silentLogger);
    closers.push(async () => {
      await daemon.shutdown("terminate", 0);
      await issues.followUps.close();
      delete process.env.GH_ISSUES;
    });
    const run = await waitFor(
      () =>
        daemon.ledger
          .listRuns({ schedule: "fix" })
          .find((r) => ["completed", "failed"].includes(r.status)),
      "the first run's end",
      30_000,
    );
    expect(run, JSON.stringify(run)).toMatchObject({ status: "completed" });
    const bytes = Number(readFileSync(join(dir, "work", "objective-bytes"), "utf8"));
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(128 * 1024);
  }, 60_000);
});
