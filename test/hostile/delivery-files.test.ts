// What a delivering run leaves, the daemon reads on its own thread when the run ends: the
// worktree metadata (`meta.json`) for the branch to push, the report for the pull request's
// title and body. A run that leaves a FIFO for the metadata, or a report whose long runs of
// spaces made the patterns reading it backtrack for minutes (the heading's for hours), must not
// freeze the daemon: a real daemon process whose canary schedule must go on firing.
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { firstHeading } from "../../src/delivery/pull-text.js";
import { readRunBranch } from "../../src/delivery/run-branch.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { deliveryProject, worktreeRun, worktreeRunScript } from "../helpers/delivery-world.js";
import { git } from "../helpers/git.js";
import { waitFor } from "../helpers/wait.js";
import { assertStaysResponsive, type DaemonProcess, startDaemonProcess } from "./daemon-process.js";

afterEach(cleanupTempDirs);

const DELIVER = `deliver = { pull_request = { forge = "github", token_env = "GH_TOKEN", api_url = "http://127.0.0.1:9", repository = "octo/app" } }`;

/**
 * A daemon whose schedule "check" runs `script` and delivers: the project prepared, the slot
 * fired, and once the run completed the daemon must stay responsive; then `check` of it.
 */
async function afterDeliveringRun(
  root: string,
  script: string,
  prepare: (work: string) => void = () => {},
  check: (daemon: DaemonProcess) => void = () => {},
): Promise<void> {
  const schedule = `[[schedule]]\nname = "check"\ncron = "0 3 1 1 *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(script)}]\nproject_dir = "../work"\n${DELIVER}\n`;
  const daemon = await startDaemonProcess(root, schedule);
  try {
    prepare(join(root, "work"));
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
    await assertStaysResponsive(daemon, 2_000);
    check(daemon);
  } finally {
    // A frozen daemon does not stop on SIGTERM.
    const kill = setTimeout(() => daemon.child.kill("SIGKILL"), 10_000);
    await daemon.stop();
    clearTimeout(kill);
  }
}

// The run: its worktree folder, with a FIFO where its metadata goes; then it completes.
const FIFO_META = `
const dir = ".autoloop/worktrees/" + process.env.AUTOLOOP_CRON_RUN_ID;
require("node:fs").mkdirSync(dir, { recursive: true });
require("node:child_process").execFileSync("mkfifo", [dir + "/meta.json"]);
`;

describe("a delivering run's files", () => {
  it("a FIFO for its worktree metadata: the delivery is skipped and the daemon goes on", async () => {
    const root = tempDir("autoloop-delivery-files-");
    await afterDeliveringRun(root, FIFO_META, undefined, (daemon) =>
      expect(daemon.log()).toMatch(/meta\.json/),
    );
  }, 60_000);

  it("a report made to backtrack: read in linear time, the daemon goes on", async () => {
    const root = tempDir("autoloop-report-patterns-");
    const report = join(root, "report.md");
    writeFileSync(report, `# a${" ".repeat(5_000)}b\n\nx${" ".repeat(150_000)}y\n`);
    await afterDeliveringRun(root, worktreeRunScript({ file: report }), (work) => {
      git(work, "init", "--quiet", "--initial-branch=main");
      writeFileSync(join(work, "app.js"), "original\n");
      git(work, "add", "-A");
      git(work, "commit", "--quiet", "-m", "init");
    });
  }, 90_000);

  it("metadata naming another branch is refused; a report that is a link gives only its path", async () => {
    const p = await deliveryProject("octo/app", "token");
    await p.gitHttp.close();
    const secret = join(p.root, "secret.txt");
    writeFileSync(secret, "the daemon's secret\n");
    const outcome = worktreeRun(p.project, "run-1", "changed\n");
    const tree = join(p.project, ".autoloop", "worktrees", "run-1", "tree");
    symlinkSync(secret, join(tree, "LINKED.md"));
    git(tree, "add", "-A");
    git(tree, "commit", "--quiet", "-m", "a link");
    const linked = await readRunBranch(outcome.journalPath, "run-1", "LINKED.md");
    // git keeps a link as its target's path, which is all the report says (a line starting
    // with "/" is kept from reading as a quick action).
    expect(linked.kind === "commits" && linked.report?.replaceAll("\u200b", "")).toBe(secret);
    const meta = join(p.project, ".autoloop", "worktrees", "run-1", "meta.json");
    writeFileSync(meta, readFileSync(meta, "utf8").replace('"autoloop/run-1"', '"main"'));
    const other = await readRunBranch(outcome.journalPath, "run-1", "LINKED.md");
    expect(other).toMatchObject({ kind: "none", why: expect.stringContaining("not the run's") });
  });

  it("a report too big to read whole is said to be so, not taken for none", async () => {
    const p = await deliveryProject("octo/app", "token");
    await p.gitHttp.close();
    const outcome = worktreeRun(p.project, "run-1", "changed\n");
    const tree = join(p.project, ".autoloop", "worktrees", "run-1", "tree");
    writeFileSync(join(tree, "HUGE.md"), `# Huge\n${"x".repeat(4 * 1024 * 1024)}\n`);
    git(tree, "add", "-A");
    git(tree, "commit", "--quiet", "-m", "a huge report");
    const huge = await readRunBranch(outcome.journalPath, "run-1", "HUGE.md");
    expect(huge.kind === "commits" && huge.report).toMatch(
      /^_The run's `HUGE\.md` is 4194\d{3} bytes, too long to show here: read it on the branch\._/,
    );
    const none = await readRunBranch(outcome.journalPath, "run-1", "NONE.md");
    expect(none.kind === "commits" && none.report).toBeUndefined();
  });

  it("a report's heading reads as before: closing marks dropped, a word's own # kept", () => {
    expect(firstHeading("intro\n## Simplify the parser ##\n# later")).toBe("Simplify the parser");
    expect(firstHeading("# Port to C#")).toBe("Port to C#");
    expect(firstHeading("#\nnot a heading\n#### too deep")).toBeUndefined();
    expect(firstHeading(`# a${" ".repeat(200_000)}b`)).toBe(`a${" ".repeat(200_000)}b`);
  });
});
