// `fire` for one scheduled slot: from --slot or a Kubernetes Job's name, claimed once, retried
// by the schedule's `retry` under each attempt's own key.
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { slotOfJob } from "../../src/scheduler/export/kubernetes-job-slot.js";
import { cronJobName } from "../../src/scheduler/export/kubernetes-names.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { commandSchedule, writeCronConfig } from "../helpers/daemon.js";

afterEach(cleanupTempDirs);

function fire(dir: string, env: Record<string, string>, ...args: string[]) {
  const argv = [AUTOLOOP_CRON, "fire", ...args, "--config", join(dir, "autoloop-cron.toml")];
  return execa(process.execPath, argv, { env: cleanEnv(env), reject: false });
}

const yearly = (script: string, extra = "") =>
  commandSchedule("nightly", script, extra).replace('cron = "* * * * * *"', 'cron = "0 0 1 1 *"');

describe("the slot of a Kubernetes Job, from its name", () => {
  it("is the minute the CronJob controller put in the name; other names are manual runs", () => {
    expect(slotOfJob("nightly", "nightly-29404440")).toEqual({
      kind: "scheduled",
      slot: new Date(29_404_440 * 60_000),
    });
    for (const name of ["my-test", "nightly-", "nightly-12", "nightly-2940444x", "other-29404440"])
      expect(slotOfJob("nightly", name).kind).toBe("unscheduled");
    // A long schedule name's CronJob is shortened: its Jobs carry the shortened name.
    const long = `x${"-long".repeat(12)}`;
    const shortened = cronJobName(long).name;
    expect(shortened).not.toBe(long);
    expect(slotOfJob(long, `${shortened}-29404440`).kind).toBe("scheduled");
    expect(slotOfJob(long, `${long}-29404440`).kind).toBe("unscheduled");
  });
});

describe("autoloop-cron fire for a scheduled slot", () => {
  it("runs the Job's slot once: a second Job for the same time starts nothing and says why", async () => {
    const dir = tempDir();
    writeCronConfig(dir, yearly("console.log('ran')"));
    const job = { AUTOLOOP_CRON_JOB_NAME: "nightly-29404440" };
    const first = await fire(dir, job, "nightly");
    expect(first.exitCode).toBe(0);
    const second = await fire(dir, job, "nightly");
    expect(second.exitCode).toBe(0);
    expect(second.stderr).toContain(
      "the slot of 2025-11-27T18:00:00.000Z is already claimed by nightly-20251127T1800-",
    );
    const runs = RunLedger.open(join(dir, "state")).listRuns();
    expect(runs.map((r) => `${r.slot} ${r.trigger} ${r.status}`)).toEqual([
      "2025-11-27T18:00:00.000Z cron completed",
    ]);
  });

  it("retries a failed slot by its `retry`, each attempt under its own claim", async () => {
    const dir = tempDir();
    const retry = 'retry = { attempts = 2, delay = "1s", on = ["failed"] }';
    writeCronConfig(dir, yearly("process.exit(4)", retry));
    const r = await fire(dir, {}, "nightly", "--slot", "2026-11-29T06:00:00Z");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/nightly: attempt 2 at .* \(retry\)/);
    const runs = RunLedger.open(join(dir, "state")).listRuns();
    expect(runs.map((r) => `${r.attempt ?? 1} ${r.status}`).sort()).toEqual([
      "1 failed",
      "2 failed",
    ]);
  });

  it("refuses a --slot that is no time, and an empty Job name, naming the fix", async () => {
    const dir = tempDir();
    writeCronConfig(dir, yearly("console.log('ran')"));
    const bad = await fire(dir, {}, "nightly", "--slot", "tomorrow");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--slot: found "tomorrow"; expected an ISO 8601 time');
    const empty = await fire(dir, { AUTOLOOP_CRON_JOB_NAME: "" }, "nightly");
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain("AUTOLOOP_CRON_JOB_NAME is empty");
  });
});
