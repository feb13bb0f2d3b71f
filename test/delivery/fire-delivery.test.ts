// `fire` without a daemon (what Kubernetes CronJobs and systemd timers run) delivers its run
// as the schedule's pull request itself, through the daemon's queue file; what it leaves
// pending, a daemon started later delivers.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { MonitorService } from "../../src/monitor/service.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs } from "../helpers/cli.js";
import { commandSchedule, silentLogger, writeCronConfig } from "../helpers/daemon.js";
import {
  githubDeliveryWorld,
  startDeliveringDaemon,
  WORKTREE_RUN_SCRIPT,
} from "../helpers/delivery-world.js";
import { GIT_ENV } from "../helpers/git.js";
import { waitFor } from "../helpers/wait.js";
import { webhookReceiver } from "../helpers/webhook-receiver.js";

const TOKEN = "ghp_firetoken0123456789abc";
const PULL = "https://github.example/octo/app/pull/1";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

/** A config whose schedule "check" (a yearly cron: only `fire` runs it) delivers to GitHub. */
async function fireWorld(extraConfig = "", token = TOKEN) {
  const { dir, github, deliver } = await githubDeliveryWorld(TOKEN, closers);
  const schedule = commandSchedule("check", WORKTREE_RUN_SCRIPT, deliver).replace(
    'cron = "* * * * * *"',
    'cron = "0 0 1 1 *"',
  );
  const config = writeCronConfig(dir, schedule, extraConfig);
  const fire = () =>
    execa(process.execPath, [AUTOLOOP_CRON, "fire", "check", "--foreground"], {
      cwd: dir,
      env: cleanEnv({ ...GIT_ENV, GH_TOKEN: token }),
      extendEnv: false,
      reject: false,
      timeout: 60_000,
    });
  return { config, github, fire };
}

describe("fire without a daemon delivers its run", () => {
  it("opens the schedule's pull request and records it in the run's ledger", async () => {
    const { config, github, fire } = await fireWorld();
    const result = await fire();
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(`pull request opened: ${PULL}`);
    expect(github.pulls[0]).toMatchObject({ head: "autoloop/check", base: "main" });
    expect(github.problems).toEqual([]);
    const [run] = RunLedger.open(config.stateDir).listRuns({ schedule: "check" });
    expect(run).toMatchObject({ status: "completed", pullRequest: PULL });
  });

  it("leaves a delivery the forge put off to a daemon started later, which delivers it", async () => {
    const { config, github, fire } = await fireWorld();
    github.failures.push({ status: 503, headers: { "retry-after": "3600" } });
    const result = await fire();
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain("pull request delivery pending");
    expect(github.pulls).toEqual([]);

    // The daemon starts an hour on, when the forge said to come back.
    const { daemon } = await startDeliveringDaemon(config, TOKEN, closers, {
      queue: { now: () => Date.now() + 3_600_000 },
    });
    const run = await waitFor(
      () => daemon.ledger.listRuns({ schedule: "check" }).find((r) => r.pullRequest !== undefined),
      "the fired run's pull request in the ledger",
      30_000,
    );
    expect(run.pullRequest).toBe(PULL);
    expect(github.pulls).toHaveLength(1);
    expect(github.problems).toEqual([]);
  });

  it("marks a delivery it gives up on, which the monitor then pages once", async () => {
    const { posted, url: hook } = await webhookReceiver(closers);
    const channel = `alert = ["hook"]\n[[channel]]\nname = "hook"\ntype = "webhook"\nurl = "${hook}/alerts"\n`;
    const { config, github, fire } = await fireWorld(channel, "ghp_revokedtoken0123456789");
    // The monitor has watched this state dir since before the fire.
    mkdirSync(join(config.stateDir, "monitor"), { recursive: true });
    const since = new Date(Date.now() - 60_000).toISOString();
    writeFileSync(join(config.stateDir, "monitor", "watching-since"), `${since}\n`);
    const result = await fire();
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain("pull request not delivered");
    expect(github.pulls).toEqual([]);

    const monitor = new MonitorService({ config, logger: silentLogger });
    await monitor.runOnce();
    await monitor.runOnce();
    await monitor.stop();
    // Once: a restarted monitor reads on from where the last one stopped.
    const restarted = new MonitorService({ config, logger: silentLogger });
    closers.push(() => restarted.stop());
    await restarted.runOnce();
    expect(posted.map((p) => p.data)).toMatchObject([
      { kind: "pull_request_failed", schedule: "check" },
    ]);
    expect(posted[0]!.data.summary).toContain("the remote refused the token");
  });
});
