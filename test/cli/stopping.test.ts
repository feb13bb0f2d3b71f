// Stopping the daemon as users and supervisors do: Ctrl-C under `npm start` delivers SIGINT
// twice at once (the terminal's, and npm's forwarded copy), which is one request to stop
// (exit 0); npm's copy reaches the daemon at all only because the start script execs it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, ROOT, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";
import { startDaemonProcess } from "../hostile/daemon-process.js";

afterEach(cleanupTempDirs);

describe("stopping the daemon", () => {
  it("takes two SIGINTs at once as one request: a clean stop, exit 0", async () => {
    const daemon = await startDaemonProcess(tempDir("autoloop-stop-"), "");
    daemon.child.kill("SIGINT");
    daemon.child.kill("SIGINT");
    const result = await daemon.child;
    expect(result.exitCode).toBe(0);
    expect(daemon.log()).toContain("autoloop-cron stopped");
    expect(daemon.log()).not.toContain("second signal");
  }, 60_000);

  it("npm start execs the daemon, so a signal npm forwards reaches it", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(pkg.scripts.start).toMatch(/^exec node dist\/bin\/autoloop-cron\.js start /);
  });
});

describe("fire --foreground with a daemon running", () => {
  it("stops the run on Ctrl-C, through the daemon, instead of leaving it running", async () => {
    const root = tempDir("autoloop-stop-");
    const sleeper = `[[schedule]]\nname = "sleeper"\ncron = "0 3 1 1 *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", "setTimeout(() => {}, 60000)"]\nproject_dir = "../work"\n`;
    const daemon = await startDaemonProcess(root, sleeper);
    try {
      const fire = execa(
        process.execPath,
        [AUTOLOOP_CRON, "fire", "sleeper", "--foreground", "--config", daemon.config],
        { env: cleanEnv(), extendEnv: false, reject: false },
      );
      let out = "";
      fire.stdout?.on("data", (c: Buffer) => (out += c));
      const runId = await waitFor(() => /^(\S+)\n/.exec(out)?.[1], "the run id", 20_000, 50);
      fire.kill("SIGINT");
      const result = await fire;
      expect(result.exitCode).toBe(130);
      expect(result.stderr).toContain(`stopping ${runId} through the daemon`);
      const show = await execa(
        process.execPath,
        [AUTOLOOP_CRON, "runs", "show", runId, "--json", "--config", daemon.config],
        { env: cleanEnv(), extendEnv: false },
      );
      expect(JSON.parse(show.stdout).summary).toMatchObject({
        status: "killed",
        detail: "SIGINT to autoloop-cron fire --foreground",
      });
    } finally {
      await daemon.stop();
    }
  }, 60_000);
});
