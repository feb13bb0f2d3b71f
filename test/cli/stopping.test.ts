// Stopping the daemon as users and supervisors do: Ctrl-C under `npm start` delivers SIGINT
// twice at once (the terminal's, and npm's forwarded copy), which is one request to stop
// (exit 0); npm's copy reaches the daemon at all only because the start script execs it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanupTempDirs, ROOT, tempDir } from "../helpers/cli.js";
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
