import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { commandSchedule, writeCronConfig } from "../helpers/daemon.js";

afterEach(cleanupTempDirs);

function cron(dir: string, ...args: string[]) {
  return execa(
    process.execPath,
    [AUTOLOOP_CRON, ...args, "--config", join(dir, "autoloop-cron.toml")],
    { env: cleanEnv(), reject: false },
  );
}

describe("autoloop-cron operator commands", () => {
  it("validate names file, field, value and fix, and exits 1", async () => {
    const dir = tempDir();
    writeCronConfig(
      dir,
      '[[schedule]]\nname = "nightly"\ncron = "0 25 * * *"\nkind = "command"\ncommand = ["true"]\noverlap = "sometimes"\n',
    );
    const res = await cron(dir, "validate");
    expect(res.exitCode).toBe(1);
    expect(res.stdout).toContain(
      'error: schedules/test.toml: schedule[0].cron: found "0 25 * * *"',
    );
    expect(res.stdout).toContain(
      'error: schedules/test.toml: schedule[0].overlap: found "sometimes"; expected one of "skip", "queue", "replace", "allow"',
    );
    const json = JSON.parse((await cron(dir, "validate", "--json")).stdout);
    expect(json.ok).toBe(false);
  });

  it("lists schedules and their pause state; pause and resume take effect", async () => {
    const dir = tempDir();
    writeCronConfig(dir, commandSchedule("hourly", "", 'timezone = "Europe/Berlin"'));
    expect((await cron(dir, "validate")).exitCode).toBe(0);
    expect((await cron(dir, "pause", "hourly")).stdout).toBe("hourly paused");
    const listed = JSON.parse((await cron(dir, "list", "--json")).stdout);
    expect(listed.schedules[0]).toMatchObject({
      name: "hourly",
      timezone: "Europe/Berlin",
      paused: true,
      overlap: "skip",
    });
    expect((await cron(dir, "resume", "hourly")).stdout).toBe("hourly resumed");
    const unknown = await cron(dir, "pause", "nope");
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('unknown schedule "nope"');
  });

  it("fires in the foreground without a daemon, records the run and exits with its outcome", async () => {
    const dir = tempDir();
    writeCronConfig(
      dir,
      commandSchedule("ok", "console.log('hello from the run')") +
        commandSchedule("bad", "process.exit(4)"),
    );
    const ok = await cron(dir, "fire", "ok", "--foreground");
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toContain("hello from the run");
    const bad = await cron(dir, "fire", "bad");
    expect(bad.exitCode).toBe(1);
    const runs = JSON.parse((await cron(dir, "runs", "--json")).stdout);
    expect(
      runs.map((r: { schedule: string; status: string }) => `${r.schedule}:${r.status}`).sort(),
    ).toEqual(["bad:failed", "ok:completed"]);
    const okRun = runs.find((r: { schedule: string }) => r.schedule === "ok");
    const show = await cron(dir, "runs", "show", okRun.runId);
    expect(show.stdout).toContain("status completed");
    expect(show.stdout).toMatch(/scheduled[\s\S]*started[\s\S]*finished/);
    expect((await cron(dir, "output", okRun.runId)).stdout).toContain("hello from the run");
    const traversal = await cron(dir, "runs", "show", "../../etc/passwd");
    expect(traversal.exitCode).toBe(2);
    expect(traversal.stderr).toContain("is not a valid run id");
  });

  it("has --help on every command", async () => {
    const dir = tempDir();
    writeCronConfig(dir, "");
    for (const command of [
      "start",
      "validate",
      "list",
      "fire",
      "runs",
      "output",
      "stop",
      "pause",
      "resume",
    ]) {
      const res = await cron(dir, command, "--help");
      expect(res.exitCode, command).toBe(0);
      expect(res.stdout, command).toMatch(/^Usage/);
    }
  });
});
