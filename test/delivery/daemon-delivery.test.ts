// The daemon delivers a finished worktree run as its schedule's pull request: queued as the run
// ends, recorded in the run's ledger (`runs show`), and the token kept out of the run's
// environment.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanupTempDirs } from "../helpers/cli.js";
import { commandSchedule, writeCronConfig } from "../helpers/daemon.js";
import {
  githubDeliveryWorld,
  startDeliveringDaemon,
  WORKTREE_RUN_SCRIPT,
} from "../helpers/delivery-world.js";
import { enqueuedMessages } from "../helpers/outbox.js";
import { waitFor } from "../helpers/wait.js";

const TOKEN = "ghp_daemontoken0123456789";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

describe("the daemon's pull request delivery", () => {
  it("opens the schedule's pull request when a run completes, and records it in the run's ledger", async () => {
    const { daemon, github, work, config } = await deliveringDaemon(TOKEN);
    const run = await waitFor(
      () => daemon.ledger.listRuns({ schedule: "check" }).find((r) => r.pullRequest !== undefined),
      "a run whose pull request is in the ledger",
      60_000,
    );
    expect(run.pullRequest).toBe("https://github.example/octo/app/pull/1");
    expect(github.pulls[0]).toMatchObject({
      head: "autoloop/check",
      base: "main",
      title: "check: Checked the app",
    });
    expect(github.problems).toEqual([]);
    expect(github.pulls[0]!.body).toContain(
      `(https://cron.example.com/autoloop/runs/${run.runId})`,
    );
    const env = JSON.parse(readFileSync(join(work, `env-${run.runId}.json`), "utf8")) as Record<
      string,
      string
    >;
    expect(env.GH_TOKEN).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain(TOKEN);
    await daemon.ledger.durable();
    const shown = await execa(process.execPath, [
      AUTOLOOP_CRON,
      "runs",
      "show",
      run.runId,
      "--config",
      config.file!,
    ]);
    expect(shown.stdout).toContain("Pull request: https://github.example/octo/app/pull/1");
  }, 90_000);

  it("pages through the schedule's channels when the forge refuses the token", async () => {
    const { stateDir, github } = await deliveringDaemon("ghp_revokedtoken0123456789");
    const page = await waitFor(
      () => enqueuedMessages(stateDir).find((m) => m.kind === "pull_request_failed"),
      "the page about the undelivered pull request",
    );
    expect(page).toMatchObject({ schedule: "check", status: "firing" });
    expect(page.summary).toContain("the remote refused the token");
    expect(JSON.stringify(page)).not.toContain("ghp_revokedtoken0123456789");
    expect(github.pulls).toEqual([]);
  });
});

/** A daemon whose schedule "check" runs every second and delivers with `token` in GH_TOKEN. */
async function deliveringDaemon(token: string) {
  const { dir, work, github, deliver } = await githubDeliveryWorld(TOKEN, closers);
  const channel = `[[channel]]\nname = "ops"\ntype = "command"\ncommand = ["/bin/true"]\n`;
  // The page behind a proxy: pull requests link to a run's page there.
  const publicUrl = 'public_url = "https://cron.example.com/autoloop/"\n';
  const config = writeCronConfig(
    dir,
    commandSchedule("check", WORKTREE_RUN_SCRIPT, deliver),
    channel,
    publicUrl,
  );

  const { daemon } = await startDeliveringDaemon(config, token, closers, { monitor: true });
  return { daemon, github, work, config, stateDir: config.stateDir };
}
