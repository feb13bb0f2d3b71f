// A delivering schedule's daemon reads the run's worktree metadata (`meta.json`, which the run
// writes) to find the branch to push. A run that leaves a FIFO there must not freeze the
// daemon: a real daemon process, whose canary schedule must go on firing after the run ends.
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";
import { assertStaysResponsive, startDaemonProcess } from "./daemon-process.js";

afterEach(cleanupTempDirs);

// The run: its worktree folder, with a FIFO where its metadata goes; then it completes.
const FIFO_META = `
const dir = ".autoloop/worktrees/" + process.env.AUTOLOOP_CRON_RUN_ID;
require("node:fs").mkdirSync(dir, { recursive: true });
require("node:child_process").execFileSync("mkfifo", [dir + "/meta.json"]);
`;

describe("a delivering run's worktree metadata", () => {
  it("a FIFO: the delivery is skipped and the daemon goes on", async () => {
    const root = tempDir("autoloop-delivery-files-");
    const schedule = `[[schedule]]\nname = "check"\ncron = "0 3 1 1 *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(FIFO_META)}]\nproject_dir = "../work"\ndeliver = { pull_request = { forge = "github", token_env = "GH_TOKEN", api_url = "http://127.0.0.1:9", repository = "octo/app" } }\n`;
    const daemon = await startDaemonProcess(root, schedule);
    try {
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
        20_000,
        100,
      );
      await assertStaysResponsive(daemon, 3_000);
      expect(daemon.log()).toMatch(/meta\.json/);
    } finally {
      // A frozen daemon does not stop on SIGTERM.
      const kill = setTimeout(() => daemon.child.kill("SIGKILL"), 10_000);
      await daemon.stop();
      clearTimeout(kill);
    }
  }, 60_000);
});
