// The daemon reads a delivering run's report for the pull request's title and body. A report
// whose heading and lines hold long runs of spaces made the patterns that read them backtrack
// for minutes (the heading's for hours) on the daemon's only thread: no slot fired, /healthz
// went silent. A real daemon process and its canary schedule.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { firstHeading } from "../../src/delivery/pull-text.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { worktreeRunScript } from "../helpers/delivery-world.js";
import { git } from "../helpers/git.js";
import { waitFor } from "../helpers/wait.js";
import { assertStaysResponsive, startDaemonProcess } from "./daemon-process.js";

afterEach(cleanupTempDirs);

describe("a report made to backtrack", () => {
  it("gives its heading as before: closing marks dropped, a word's own # kept", () => {
    expect(firstHeading("intro\n## Simplify the parser ##\n# later")).toBe("Simplify the parser");
    expect(firstHeading("# Port to C#")).toBe("Port to C#");
    expect(firstHeading("#\nnot a heading\n#### too deep")).toBeUndefined();
    expect(firstHeading(`# a${" ".repeat(200_000)}b`)).toBe(`a${" ".repeat(200_000)}b`);
  });

  it("is read in linear time: the daemon goes on firing", async () => {
    const root = tempDir("autoloop-report-patterns-");
    const report = join(root, "report.md");
    writeFileSync(report, `# a${" ".repeat(5_000)}b\n\nx${" ".repeat(150_000)}y\n`);
    const run = worktreeRunScript({ file: report });
    const deliver = `deliver = { pull_request = { forge = "github", token_env = "GH_TOKEN", api_url = "http://127.0.0.1:9", repository = "octo/app" } }`;
    const schedule = `[[schedule]]\nname = "check"\ncron = "0 3 1 1 *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(run)}]\nproject_dir = "../work"\n${deliver}\n`;
    const daemon = await startDaemonProcess(root, schedule);
    try {
      const work = join(root, "work");
      git(work, "init", "--quiet", "--initial-branch=main");
      writeFileSync(join(work, "app.js"), "original\n");
      git(work, "add", "-A");
      git(work, "commit", "--quiet", "-m", "init");
      const cron = (...args: string[]) =>
        execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", daemon.config], {
          env: cleanEnv(),
          extendEnv: false,
        });
      await cron("fire", "check");
      await waitFor(
        async () =>
          JSON.parse((await cron("runs", "--schedule", "check", "--json")).stdout)[0]?.status ===
          "completed",
        "the run's end",
        30_000,
        100,
      );
      await assertStaysResponsive(daemon, 3_000);
    } finally {
      // A frozen daemon does not stop on SIGTERM.
      const kill = setTimeout(() => daemon.child.kill("SIGKILL"), 10_000);
      await daemon.stop();
      clearTimeout(kill);
    }
  }, 90_000);
});
