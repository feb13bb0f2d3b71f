// An issue follow-up the tracker refuses is given up at once and paged once (Kubernetes mode:
// `fire` writes the record, the monitor over the same state dir pages it), naming the issue, the
// token's variable and the fix, never again after a monitor restart; a 503 is only retried.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startIssueFollowUps } from "../../src/app/issues.js";
import { listUntoldIssues } from "../../src/monitor/outbox/untold-issues.js";
import { MonitorService } from "../../src/monitor/service.js";
import { readRunIssues } from "../../src/tracker/run-issues.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { commandSchedule, silentLogger, startDaemon, writeCronConfig } from "../helpers/daemon.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { waitFor } from "../helpers/wait.js";
import { webhookReceiver } from "../helpers/webhook-receiver.js";

const TOKEN = "ghp_pagedtoken0123456789";
const KIND = "issue_followup_failed";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

const isRelease = (r: { method: string; template: string; body?: unknown }) =>
  r.method === "POST" && JSON.stringify(r.body).includes("autoloop-cron:release");

/** A schedule taking GitHub issues, a webhook channel, a monitor that watched from a minute ago. */
async function pagedWorld(cron: string) {
  const dir = tempDir();
  const github = await new FakeGitHub("octo", "app", TOKEN).start();
  closers.push(() => github.close());
  const hook = await webhookReceiver(closers);
  const source = `source = { github_issues = { repo = "octo/app", api_url = "${github.url}" } }`;
  const schedule = commandSchedule("fix", "", source).replace('"* * * * * *"', `"${cron}"`);
  const channel = `alert = ["hook"]\n[[channel]]\nname = "hook"\ntype = "webhook"\nurl = "${hook.url}/alerts"\n`;
  const config = writeCronConfig(dir, schedule, channel);
  mkdirSync(join(config.stateDir, "monitor"), { recursive: true });
  const since = new Date(Date.now() - 60_000).toISOString();
  writeFileSync(join(config.stateDir, "monitor", "watching-since"), `${since}\n`);
  const pages = () => hook.posted.filter((p) => p.data.kind === KIND);
  /** One pass of a monitor started afresh over the state dir, then stopped. */
  const monitorPass = async () => {
    const monitor = new MonitorService({ config, logger: silentLogger });
    try {
      await monitor.runOnce();
    } finally {
      await monitor.stop();
    }
  };
  return { dir, github, config, pages, monitorPass };
}

describe("an issue follow-up given up on", () => {
  it("a refused token: given up at once by fire, paged once naming the issue and the token's variable", async () => {
    const { dir, github, config, pages, monitorPass } = await pagedWorld("0 0 1 1 *");
    github.refuse = (r) => (isRelease(r) ? 401 : undefined);
    const issue = github.add("Fix the parser", "");
    const fired = await execa(
      process.execPath,
      [AUTOLOOP_CRON, "fire", "fix", "--config", join(dir, "autoloop-cron.toml")],
      { env: cleanEnv({ GITHUB_TOKEN: TOKEN }), reject: false, timeout: 60_000 },
    );
    expect(fired.exitCode, fired.stderr).toBe(0);
    expect(fired.stderr).toContain("issue follow-up given up (refused, 1 attempt)");
    // Not queued for a day: given up as fire's one attempt was refused, and owed a page.
    const [untold] = listUntoldIssues(config.stateDir);
    expect(untold).toMatchObject({ schedule: "fix", issues: ["octo/app#1"] });
    expect(readRunIssues(config.stateDir, untold!.runId)).toBeUndefined();
    expect(issue.labels).toContain("autoloop:working");

    await monitorPass();
    expect(pages()).toHaveLength(1);
    const page = JSON.stringify(pages()[0]);
    expect(page).toContain("issue not updated");
    expect(page).toContain("octo/app#1");
    expect(page).toContain(untold!.runId);
    expect(page).toContain("401 Bad credentials");
    expect(page).toContain("replace the token in the environment variable GITHUB_TOKEN");
    expect(page).toContain('remove the label \\"autoloop:working\\" from octo/app#1 by hand');
    expect(page).not.toContain(TOKEN);
    // A monitor restarted over the same state dir does not page it again.
    await monitorPass();
    expect(pages()).toHaveLength(1);
    expect(listUntoldIssues(config.stateDir)).toEqual([]);
    expect(github.problems).toEqual([]);
  }, 90_000);

  it("a 503 is retried, not paged, and the issue is told once the tracker answers", async () => {
    const { github, config, pages, monitorPass } = await pagedWorld("* * * * * *");
    let unavailable = 2;
    github.refuse = (r) => (isRelease(r) && unavailable-- > 0 ? 503 : undefined);
    const saved = process.env.GITHUB_TOKEN;
    process.env.GITHUB_TOKEN = TOKEN;
    closers.push(async () => {
      if (saved === undefined) delete process.env.GITHUB_TOKEN;
      else process.env.GITHUB_TOKEN = saved;
    });
    const daemon = await startDaemon(config);
    const issues = startIssueFollowUps(daemon, silentLogger, { random: () => 0 });
    closers.push(async () => {
      await daemon.shutdown("terminate", 0);
      await issues.followUps.close();
    });
    const issue = github.add("Flaky tracker", "");
    await waitFor(() => issue.labels.includes("autoloop:done"), "the issue told", 30_000);
    expect(unavailable).toBeLessThan(0);
    expect(issue.comments.filter((c) => c.includes("autoloop-cron:release"))).toHaveLength(1);
    await monitorPass();
    expect(pages()).toEqual([]);
    expect(listUntoldIssues(config.stateDir)).toEqual([]);
    expect(github.problems).toEqual([]);
  }, 60_000);
});
