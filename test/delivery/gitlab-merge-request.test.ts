// A run's branch as a GitLab merge request: pushed over git's smart-HTTP server with the token
// as GitLab takes it, the merge request opened and updated through Gitbeaker; a 429 waits as
// GitLab asks, in the durable queue, not in the client.
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type DeliveryEnd, DeliveryQueue } from "../../src/delivery/queue.js";
import { runDelivery } from "../../src/delivery/run-delivery.js";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import {
  parseScheduleFile,
  type Schedule,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { cleanupTempDirs } from "../helpers/cli.js";
import { deliveryProject, remoteHead, worktreeRun } from "../helpers/delivery-world.js";
import { FakeGitLab } from "../helpers/fake-gitlab.js";

const TOKEN = "glpat-loopbacktoken0123456789";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

function schedule(apiUrl: string, projectDir: string): Schedule {
  const config = parseConfigText("autoloop-cron.toml", "", "/srv").config!;
  const text = `[[schedule]]\nname = "simplify"\ncron = "0 2 * * *"\npreset = "simplify"\nobjective = "o"\nproject_dir = "/srv/p"
deliver = { pull_request = { forge = "gitlab", base = "main", draft = true, labels = ["bot", "deps"], reviewers = ["alice"], token_env = "GL_TOKEN", api_url = "${apiUrl}" } }\n`;
  const file = parseScheduleFile("s.toml", text, scheduleDefaults(config), {
    fileDir: "/srv",
    configDir: "/srv",
  });
  expect(file.problems).toEqual([]);
  return { ...file.schedules[0]!, projectDir } as Schedule;
}

describe("a run's branch as a GitLab merge request", () => {
  it("opens a draft merge request with labels and reviewers, updates it, and waits out a 429", async () => {
    const p = await deliveryProject("group/app", TOKEN);
    const gitlab = await new FakeGitLab("group/app", TOKEN).start();
    closers.push(
      () => p.gitHttp.close(),
      () => gitlab.close(),
    );
    const s = schedule(gitlab.url, p.project);
    const clock = { now: Date.parse("2026-11-29T02:00:00Z") };
    const ends: DeliveryEnd[] = [];
    const queue = DeliveryQueue.open({
      path: join(p.root, "deliveries.jsonl"),
      now: () => clock.now,
      attempt: { env: { GL_TOKEN: TOKEN } },
      onEnd: (e) => ends.push(e),
    });
    closers.push(() => queue.close());
    const deliver = async (runId: string) => {
      const d = await runDelivery(s, runId, worktreeRun(p.project, runId, `${runId}\n`));
      if (d.kind !== "deliver") throw new Error(d.why);
      queue.enqueue(d.job);
      await queue.deliverDue();
      return d.job;
    };

    const first = await deliver("run-1");
    expect(remoteHead(p, "autoloop/simplify")).toBe(first.sha);
    expect(gitlab.mergeRequests).toEqual([
      expect.objectContaining({
        source_branch: "autoloop/simplify",
        target_branch: "main",
        title: "Draft: simplify: Simplify: run-1",
        labels: ["bot", "deps"],
        reviewer_ids: [7],
      }),
    ]);
    expect(ends.at(-1)!.result).toEqual({
      kind: "delivered",
      action: "opened",
      number: 1,
      url: "https://gitlab.example/group/app/-/merge_requests/1",
    });
    expect(p.gitHttp.authorizations).toContain(
      `Basic ${Buffer.from(`oauth2:${TOKEN}`).toString("base64")}`,
    );

    // Someone swaps the labels for their own and asks bob instead of alice.
    gitlab.mergeRequests[0]!.labels = ["mine"];
    gitlab.mergeRequests[0]!.reviewer_ids = [8];
    gitlab.failures.push({ status: 429, headers: { "retry-after": "5" } });
    const before = gitlab.requests.length;
    const second = await deliver("run-2");
    expect(gitlab.requests.length - before).toBe(1);
    expect(queue.result("run-2")).toMatchObject({ kind: "pending", failures: 1 });
    expect(queue.nextDueAt()).toBe(clock.now + 5000);
    clock.now += 5000;
    await queue.deliverDue();
    expect(queue.result("run-2")).toMatchObject({
      kind: "delivered",
      action: "updated",
      number: 1,
    });
    expect(gitlab.mergeRequests).toHaveLength(1);
    expect(gitlab.mergeRequests[0]!.title).toBe("Draft: simplify: Simplify: run-2");
    // The schedule's labels and reviewer are back; the person's stay.
    expect(gitlab.mergeRequests[0]!.labels).toEqual(["mine", "bot", "deps"]);
    expect(gitlab.mergeRequests[0]!.reviewer_ids).toEqual([8, 7]);
    expect(remoteHead(p, "autoloop/simplify")).toBe(second.sha);
    expect(gitlab.problems).toEqual([]);
  });
});
