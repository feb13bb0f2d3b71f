// `autoloop-cron list` with a daemon running shows what it has in force: a schedule file that
// stops validating keeps its last valid version there, and list says so instead of dropping it.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";
import { type DaemonProcess, startDaemonProcess } from "../hostile/daemon-process.js";

let daemon: DaemonProcess | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  cleanupTempDirs();
});

const NIGHTLY = `[[schedule]]\nname = "nightly"\ncron = "0 3 * * *"\nkind = "command"\ncommand = ["true"]\nproject_dir = "../work"\n`;

it("lists the last valid version of a file that no longer validates, marked, while the daemon runs it", async () => {
  const dir = tempDir("autoloop-list-");
  const other = join(dir, "schedules", "other.toml");
  // Written before the start: the daemon loads it with the rest.
  mkdirSync(join(dir, "schedules"), { recursive: true });
  writeFileSync(other, NIGHTLY);
  daemon = await startDaemonProcess(dir, "");
  const list = (...args: string[]) =>
    execa(process.execPath, [AUTOLOOP_CRON, "list", ...args, "--config", daemon!.config], {
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
    });
  await waitFor(async () => {
    const json = JSON.parse((await list("--json")).stdout);
    return json.source === "daemon" && json.schedules.length === 2;
  }, "the daemon to load other.toml");
  writeFileSync(other, NIGHTLY.replace("0 3 * * *", "0 25 * * *"));
  await waitFor(
    () => /other\.toml/.test(daemon!.log()) && /invalid|problem/i.test(daemon!.log()),
    "the reload",
  );
  const r = await list();
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toMatch(/nightly\s+0 3 \* \* \*\s+UTC\s+\S+\s+skip\s+active\*/);
  expect(r.stderr).toContain(
    "the daemon keeps running the last valid version of schedules/other.toml (marked *)",
  );
  const json = JSON.parse((await list("--json")).stdout);
  expect(json.source).toBe("daemon");
  expect(json.schedules.map((s: { name: string }) => s.name).sort()).toEqual(["canary", "nightly"]);
  expect(json.invalid[0].file).toBe("schedules/other.toml");

  // Without a daemon, the files as they are: the invalid schedule is not listed, and list says why.
  await daemon.stop();
  daemon = undefined;
  const alone = await execa(
    process.execPath,
    [AUTOLOOP_CRON, "list", "--config", join(dir, "autoloop-cron.toml")],
    { env: cleanEnv(), extendEnv: false, reject: false },
  );
  expect(alone.stdout).not.toContain("nightly");
  expect(alone.stderr).toContain("no daemon is running, so the schedules that do not validate");
});
