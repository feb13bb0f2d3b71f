// Anyone may open a pull request from a fork and push to it, and GitHub sends the schedule's
// hook a signed `pull_request` delivery for each push. A review schedule refuses a fork's pull
// request (no `allow_forks`): that refusal is the schedule doing as configured, not a failed
// run, so a stranger's pushes neither pause the schedule (`pause_after_failures`) nor page.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { scheduleStreak } from "../../src/monitor/detect/schedule-streak.js";
import { MonitorService } from "../../src/monitor/service.js";
import { hookKey, hookPayloadPath } from "../../src/scheduler/hooks/delivery.js";
import { readPauseState } from "../../src/scheduler/schedules/pause-state.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { nextEvent, silentLogger, startDaemon, writeCronConfig } from "../helpers/daemon.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { git } from "../helpers/git.js";
import { enqueuedMessages } from "../helpers/outbox.js";

const TOKEN = "ghp_reviewtoken0123456789";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

describe("a stranger's pushes to a fork's pull request", () => {
  it("neither pause the review schedule nor count among its failures", async () => {
    const dir = tempDir("autoloop-fork-prs-");
    const github = await new FakeGitHub("octo", "app", TOKEN).start();
    closers.push(() => github.close());
    github.pulls.push({
      ...{ number: 2, head: "feature", base: "main", title: "A change", body: "" },
      ...{ draft: false, state: "open", merged: false, labels: [], reviewers: [] },
      ...{ headSha: "b".repeat(40), headRepository: "mallory/app" },
    });
    const schedule = `[[schedule]]\nname = "review-pr"\ncron = "0 2 1 1 *"\npreset = "review"\nobjective = "o"\nproject_dir = "../work"\npause_after_failures = 2\ndeliver = { review = { forge = "github", token_env = "GH_TOKEN", api_url = "${github.url}", repository = "octo/app" } }\n`;
    const channel = `[[channel]]\nname = "ops"\ntype = "command"\ncommand = ["/bin/true"]\n`;
    const config = writeCronConfig(dir, schedule, channel);
    // The project the review would check the pull request out in; the forge refuses it first.
    const work = join(dir, "work");
    git(work, "init", "--quiet", "--initial-branch=main");
    git(work, "commit", "--quiet", "--allow-empty", "-m", "init");
    git(work, "remote", "add", "origin", "http://127.0.0.1:9/octo/app.git");
    process.env.GH_TOKEN = TOKEN;
    const daemon = await startDaemon(config);
    const monitor = new MonitorService({ config, logger: silentLogger, daemon });
    closers.push(async () => {
      await daemon.shutdown("terminate", 0);
      await monitor.stop();
      delete process.env.GH_TOKEN;
    });
    for (const id of ["push-1", "push-2", "push-3"]) {
      const payloadPath = hookPayloadPath(config.stateDir, "review-pr", id);
      const payload = { action: "synchronize", pull_request: { number: 2 } };
      mkdirSync(join(payloadPath, ".."), { recursive: true });
      writeFileSync(payloadPath, JSON.stringify(payload));
      const fired = daemon.fireHook("review-pr", {
        ...{ id, key: hookKey("review-pr", id), payloadPath, payload },
      });
      if (!fired?.ok) throw new Error(fired?.error ?? "not fired");
      const done = await nextEvent(daemon, "finished", (e) => e.runId === fired.runId, 30_000);
      expect(done.outcome).toMatchObject({ stopReason: "fork_refused" });
    }
    await monitor.runOnce();
    expect(readPauseState(config.stateDir).schedules).not.toContain("review-pr");
    // The failure streak the monitor pages from holds none of them.
    const runs = daemon.ledger.listRuns({ schedule: "review-pr" });
    expect(runs).toHaveLength(3);
    expect(scheduleStreak("review-pr", runs).failures).toEqual([]);
    expect(enqueuedMessages(config.stateDir)).toEqual([]);
    expect(github.problems).toEqual([]);
  }, 60_000);
});
