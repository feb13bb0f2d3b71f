// A run's branch delivered as its schedule's pull request on GitHub: pushes over git's own
// smart-HTTP server to a real bare repository, API calls through Octokit to a loopback GitHub
// whose every request and answer is checked against GitHub's published OpenAPI document.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type DeliveryEnd, DeliveryQueue } from "../../src/delivery/queue.js";
import type { DeliveryJob } from "../../src/delivery/record.js";
import { runDelivery } from "../../src/delivery/run-delivery.js";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import {
  parseScheduleFile,
  type Schedule,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import {
  type DeliveryProject,
  deliveryProject,
  remoteHead,
  worktreeRun,
} from "../helpers/delivery-world.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { git } from "../helpers/git.js";
import { transpileClosure } from "../helpers/transpile.js";
import { waitFor } from "../helpers/wait.js";

const TOKEN = "ghp_loopbacktoken0123456789";
const ENV = { GH_TOKEN: TOKEN };

interface World extends DeliveryProject {
  remoteDir: string;
  github: FakeGitHub;
  schedule: Schedule;
  queue: DeliveryQueue;
  queuePath: string;
  ends: DeliveryEnd[];
  clock: { now: number };
}

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

function scheduleWith(apiUrl: string, extra = ""): Schedule {
  const config = parseConfigText("autoloop-cron.toml", "", "/srv").config!;
  const text = `[[schedule]]
name = "simplify"
cron = "0 2 * * *"
preset = "simplify"
objective = "o"
project_dir = "/srv/p"
deliver = { pull_request = { forge = "github", base = "main", token_env = "GH_TOKEN", api_url = "${apiUrl}", labels = ["autoloop"], reviewers = ["octocat"]${extra} } }
`;
  const file = parseScheduleFile("s.toml", text, scheduleDefaults(config), {
    fileDir: "/srv",
    configDir: "/srv",
  });
  expect(file.problems).toEqual([]);
  return file.schedules[0]!;
}

async function world(): Promise<World> {
  const p = await deliveryProject("octo/app", TOKEN);
  const github = await new FakeGitHub("octo", "app", TOKEN).start();
  closers.push(
    () => p.gitHttp.close(),
    () => github.close(),
  );
  const schedule = { ...scheduleWith(github.url), projectDir: p.project } as Schedule;
  const queuePath = join(p.root, "deliveries.jsonl");
  const ends: DeliveryEnd[] = [];
  const clock = { now: Date.parse("2026-11-29T02:00:00Z") };
  const queue = openQueue(queuePath, ends, clock);
  closers.push(() => queue.close());
  return {
    ...p,
    remoteDir: join(p.root, "remotes"),
    github,
    schedule,
    queue,
    queuePath,
    ends,
    clock,
  };
}

function openQueue(
  path: string,
  ends: DeliveryEnd[],
  clock: { now: number },
  compactBytes?: number,
) {
  return DeliveryQueue.open({
    path,
    ...(compactBytes !== undefined && { compactBytes }),
    now: () => clock.now,
    random: () => 0.5,
    attempt: { env: ENV },
    onEnd: (e) => ends.push(e),
  });
}

const runWith = (w: World, runId: string, change?: string) => worktreeRun(w.project, runId, change);

async function deliver(w: World, runId: string, change?: string): Promise<DeliveryJob> {
  const d = await runDelivery(w.schedule, runId, runWith(w, runId, change));
  if (d.kind !== "deliver") throw new Error(`nothing to deliver: ${d.why}`);
  w.queue.enqueue(d.job);
  await w.queue.deliverDue();
  return d.job;
}

const remoteBranch = (w: World) => remoteHead(w, "autoloop/simplify");

describe("a run's branch as a GitHub pull request", () => {
  it("opens one pull request from autoloop/<schedule>, then updates it on the next run", async () => {
    const w = await world();
    const first = await deliver(w, "run-1", "export const double = (x) => 2 * x;\n");
    expect(remoteBranch(w)).toBe(first.sha);
    expect(w.github.pulls).toHaveLength(1);
    const pull = w.github.pulls[0]!;
    expect(pull).toMatchObject({
      head: "autoloop/simplify",
      base: "main",
      state: "open",
      labels: ["autoloop"],
      reviewers: ["octocat"],
    });
    expect(pull.title).toBe("simplify: Simplify: run-1");
    expect(pull.body).toContain("double() multiplies");
    expect(pull.body).toContain("`run-1`");
    expect(pull.body).toContain("$1.25");
    expect(w.ends.map((e) => e.result)).toEqual([
      {
        kind: "delivered",
        action: "opened",
        number: 1,
        url: "https://github.example/octo/app/pull/1",
      },
    ]);

    const second = await deliver(w, "run-2", "export const double = (x) => x * 2;\n");
    expect(remoteBranch(w)).toBe(second.sha);
    expect(w.github.pulls).toHaveLength(1);
    expect(w.github.pulls[0]!.title).toBe("simplify: Simplify: run-2");
    expect(w.ends.at(-1)!.result).toMatchObject({
      kind: "delivered",
      action: "updated",
      number: 1,
    });
    expect(w.queue.result("run-2")).toMatchObject({
      kind: "delivered",
      url: "https://github.example/octo/app/pull/1",
    });

    // Every call conformed to GitHub's API document, and the token never reached the file.
    expect(w.github.problems).toEqual([]);
    expect(w.github.requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);
    expect(w.gitHttp.authorizations).toContain(
      `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString("base64")}`,
    );
    expect(readFileSync(w.queuePath, "utf8")).not.toContain(TOKEN);
  });

  it("puts the schedule's labels and reviewers back on update, keeping those people added", async () => {
    const w = await world();
    await deliver(w, "run-1", "a\n");
    const pull = w.github.pulls[0]!;
    // Someone takes the label and the review request off, and adds their own label.
    pull.labels = ["needs-thought"];
    pull.reviewers = [];
    await deliver(w, "run-2", "b\n");
    expect(w.ends.at(-1)!.result).toMatchObject({ kind: "delivered", action: "updated" });
    expect(pull.labels).toEqual(["needs-thought", "autoloop"]);
    expect(pull.reviewers).toEqual(["octocat"]);
    expect(w.github.problems).toEqual([]);
  });

  it("delivers nothing for a run without commits or a run that failed", async () => {
    const w = await world();
    const none = await runDelivery(w.schedule, "run-1", runWith(w, "run-1"));
    expect(none).toEqual({ kind: "skip", why: "the run made no commit" });
    const failed = { ...runWith(w, "run-2", "x\n"), status: "failed" as const };
    expect(await runDelivery(w.schedule, "run-2", failed)).toMatchObject({ kind: "skip" });
    expect(w.github.requests).toEqual([]);
    expect(remoteBranch(w)).toBe("");
  });

  it("never overwrites someone else's push to the branch, and says so once", async () => {
    const w = await world();
    await deliver(w, "run-1", "a\n");
    // A person pushes a fix to the pull request's branch.
    const other = join(tempDir(), "clone");
    git(w.remoteDir, "clone", "--quiet", join(w.remoteDir, "octo", "app.git"), other);
    git(other, "checkout", "--quiet", "autoloop/simplify");
    writeFileSync(join(other, "fix.txt"), "by hand\n");
    git(other, "add", "-A");
    git(other, "commit", "--quiet", "-m", "by hand");
    git(other, "push", "--quiet", "origin", "autoloop/simplify");
    const theirs = git(other, "rev-parse", "HEAD").trim();

    await deliver(w, "run-2", "b\n");
    expect(remoteBranch(w)).toBe(theirs);
    expect(w.ends.at(-1)!.result).toMatchObject({ kind: "dead" });
    expect((w.ends.at(-1)!.result as { error: string }).error).toContain("someone else's commit");
    expect(w.github.pulls[0]!.title).toBe("simplify: Simplify: run-1");
  });

  it("opens a new pull request when the last one was closed or merged", async () => {
    const w = await world();
    await deliver(w, "run-1", "a\n");
    Object.assign(w.github.pulls[0]!, { state: "closed", merged: true });
    git(join(w.remoteDir, "octo", "app.git"), "branch", "-D", "autoloop/simplify");
    await deliver(w, "run-2", "b\n");
    expect(w.github.pulls.map((p) => [p.number, p.state])).toEqual([
      [1, "closed"],
      [2, "open"],
    ]);
    expect(w.github.problems).toEqual([]);
  });

  it("compacts its file to the pending jobs and each branch's lease, which a restart keeps", async () => {
    const w = await world();
    await w.queue.close();
    w.queue = openQueue(w.queuePath, w.ends, w.clock, 1);
    closers.push(() => w.queue.close());
    const first = await deliver(w, "run-1", "a\n");
    const lines = readFileSync(w.queuePath, "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({ type: "branch", id: "simplify", sha: first.sha }),
    ]);
    // A daemon started on the compacted file still pushes over its own commit only.
    w.queue = openQueue(w.queuePath, w.ends, w.clock);
    closers.push(() => w.queue.close());
    const second = await deliver(w, "run-2", "b\n");
    expect(remoteBranch(w)).toBe(second.sha);
    expect(w.ends.at(-1)!.result).toMatchObject({
      kind: "delivered",
      action: "updated",
      number: 1,
    });
  });

  it("retries a 429 after its Retry-After, and gives up at once on 401, 403, 404 and 422", async () => {
    const w = await world();
    w.github.failures.push({ status: 429, headers: { "retry-after": "7" } });
    await deliver(w, "run-1", "a\n");
    expect(w.queue.result("run-1")).toMatchObject({ kind: "pending", failures: 1 });
    expect(w.queue.nextDueAt()).toBe(w.clock.now + 7000);
    w.clock.now += 7000;
    await w.queue.deliverDue();
    expect(w.queue.result("run-1")).toMatchObject({ kind: "delivered", action: "opened" });

    for (const [status, words] of [
      [401, "the token was refused"],
      [403, "lacks a permission"],
      [404, "no such repository"],
      [422, "the forge refused the request"],
    ] as const) {
      w.github.failures.push({ status });
      await deliver(w, `run-${status}`, `${status}\n`);
      const end = w.ends.at(-1)!;
      expect(end.runId).toBe(`run-${status}`);
      expect(end.result).toMatchObject({ kind: "dead" });
      expect((end.result as { error: string }).error).toContain(words);
    }
    expect(w.github.problems).toEqual([]);
  });
});

// A child that delivers one queued run: killed while its API call waits for an answer.
const CHILD = `
import { DeliveryQueue } from "./src/delivery/queue.js";
const [path, token] = process.argv.slice(2);
const queue = DeliveryQueue.open({ path, attempt: { env: { GH_TOKEN: token } } });
await queue.deliverDue();
`;

describe("a delivery across a kill -9", () => {
  let buildDir: string;
  beforeAll(() => {
    buildDir = tempDir();
    transpileClosure(["src/delivery/queue.ts"], buildDir);
    writeFileSync(join(buildDir, "child.mjs"), CHILD);
  });

  it("finishes a delivery whose daemon died between the push and the API call, pushing once", async () => {
    const w = await world();
    const d = await runDelivery(w.schedule, "run-1", runWith(w, "run-1", "a\n"));
    if (d.kind !== "deliver") throw new Error(d.why);
    w.queue.enqueue(d.job);
    await w.queue.close();
    w.github.hold = true;
    const child = spawn(process.execPath, [join(buildDir, "child.mjs"), w.queuePath, TOKEN], {
      stdio: "inherit",
    });
    await waitFor(() => w.github.requests.length > 0, "the child's first API call");
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(readFileSync(w.queuePath, "utf8")).toContain('"type":"pushed"');
    expect(remoteBranch(w)).toBe(d.job.sha);
    const pushesBefore = w.gitHttp.authorizations.length;

    w.github.hold = false;
    const queue = openQueue(w.queuePath, w.ends, w.clock);
    closers.push(() => queue.close());
    await queue.deliverDue();
    expect(queue.result("run-1")).toMatchObject({ kind: "delivered", action: "opened", number: 1 });
    expect(w.github.pulls).toHaveLength(1);
    // Its push was recorded: nothing went to git again.
    expect(w.gitHttp.authorizations.length).toBe(pushesBefore);
  });
});
