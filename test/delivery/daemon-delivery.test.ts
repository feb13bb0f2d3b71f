// The daemon delivers a finished worktree run as its schedule's pull request: queued as the run
// ends, recorded in the run's ledger (`runs show`), and the token kept out of the run's
// environment.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startDeliveries } from "../../src/app/deliveries.js";
import { MonitorService } from "../../src/monitor/service.js";
import { AUTOLOOP_CRON, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { commandSchedule, silentLogger, startDaemon, writeCronConfig } from "../helpers/daemon.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { GIT_ENV, git } from "../helpers/git.js";
import { startGitHttp } from "../helpers/git-http.js";
import { enqueuedMessages } from "../helpers/outbox.js";
import { waitFor } from "../helpers/wait.js";

const TOKEN = "ghp_daemontoken0123456789";

// What the harness leaves of a worktree run, done by a command run: its branch with a commit
// and a report, its worktree metadata; and the environment it was given, to check.
const RUN = `
const { execFileSync: x } = require("node:child_process");
const fs = require("node:fs");
const id = process.env.AUTOLOOP_CRON_RUN_ID;
const dir = ".autoloop/worktrees/" + id;
const tree = require("node:path").resolve(dir, "tree");
x("git", ["worktree", "add", "-q", "-b", "autoloop/" + id, tree, "HEAD"]);
fs.writeFileSync(tree + "/app.js", "changed by " + id + "\\n");
fs.writeFileSync(tree + "/CHECK.md", "# Checked the app\\n\\nAll good.\\n");
x("git", ["-C", tree, "add", "-A"]);
x("git", ["-C", tree, "commit", "-qm", "run " + id]);
fs.writeFileSync(dir + "/meta.json", JSON.stringify({ run_id: id, branch: "autoloop/" + id,
  worktree_path: tree, base_branch: "main", status: "completed", merge_strategy: "squash",
  created_at: new Date().toISOString(), merged_at: null, removed_at: null }));
fs.writeFileSync("env-" + id + ".json", JSON.stringify(process.env));
`;

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
  });

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
  const dir = tempDir();
  const remotes = join(dir, "remotes");
  git(dir, "init", "--quiet", "--bare", "--initial-branch=main", join(remotes, "octo", "app.git"));
  const gitHttp = await startGitHttp(remotes, TOKEN);
  const github = await new FakeGitHub("octo", "app", TOKEN).start();
  closers.push(
    () => gitHttp.close(),
    () => github.close(),
  );
  const deliver = `deliver = { pull_request = { forge = "github", token_env = "GH_TOKEN", api_url = "${github.url}", repository = "octo/app" } }`;
  const channel = `[[channel]]\nname = "ops"\ntype = "command"\ncommand = ["/bin/true"]\n`;
  // The page behind a proxy: pull requests link to a run's page there.
  const publicUrl = 'public_url = "https://cron.example.com/autoloop/"\n';
  const config = writeCronConfig(dir, commandSchedule("check", RUN, deliver), channel, publicUrl);
  const work = join(dir, "work");
  git(work, "init", "--quiet", "--initial-branch=main");
  writeFileSync(join(work, "app.js"), "original\n");
  git(work, "add", "-A");
  git(work, "commit", "--quiet", "-m", "init");
  // The pull request's base: the remote's HEAD branch (the daemon fetched nothing for the run).
  git(work, "push", "--quiet", join(remotes, "octo", "app.git"), "main");
  git(work, "remote", "add", "origin", `${gitHttp.url}/octo/app.git`);

  const saved = { ...process.env };
  Object.assign(process.env, GIT_ENV, { GH_TOKEN: token });
  const daemon = await startDaemon(config);
  const monitor = new MonitorService({ config, logger: silentLogger, daemon });
  const queue = startDeliveries(daemon, silentLogger, monitor);
  closers.push(async () => {
    await daemon.shutdown("terminate", 0);
    await queue.close();
    await monitor.stop();
    for (const k of ["GH_TOKEN", ...Object.keys(GIT_ENV)]) delete process.env[k];
    Object.assign(process.env, saved);
  });
  return { daemon, github, work, config, stateDir: config.stateDir };
}
