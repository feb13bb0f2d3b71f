// A run's branch as a Gitea pull request, through Gitea's REST API on a loopback server (Gitea
// publishes its swagger document on its own servers, not on npm: requests are checked against
// the fields its API documentation requires).
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DeliveryQueue } from "../../src/delivery/queue.js";
import { runDelivery } from "../../src/delivery/run-delivery.js";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import {
  parseScheduleFile,
  type Schedule,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { cleanupTempDirs } from "../helpers/cli.js";
import { deliveryProject, remoteHead, worktreeRun } from "../helpers/delivery-world.js";
import { closeLoopback, listenLoopback } from "../helpers/loopback.js";

const TOKEN = "gitea0123456789abcdef0123456789";

interface Pull {
  number: number;
  title: string;
  body: string;
  head: { ref: string };
  base: { ref: string };
  html_url: string;
  labels: number[];
  reviewers: string[];
}

/** The repository's labels, and its organisation's: Gitea takes their ids. */
const LABELS = [
  { id: 11, name: "bot", color: "#00aabb" },
  { id: 12, name: "deps", color: "#00aabb" },
];
const ORG_LABELS = [{ id: 21, name: "org-wide", color: "#00aabb" }];
const ALL_LABELS = [...LABELS, ...ORG_LABELS];

/** Gitea's pull request endpoints of one repository, in memory. */
function fakeGitea(repository: string, pulls: Pull[], problems: string[]) {
  return createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    const body = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
    const send = (status: number, json: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
    if (req.headers.authorization !== `token ${TOKEN}`)
      return send(401, { message: "token is required" });
    const url = new URL(req.url ?? "/", "http://x");
    const repo = `/api/v1/repos/${repository}`;
    if (url.pathname === `${repo}/labels` && req.method === "GET") {
      const page = Number(url.searchParams.get("page") ?? 1);
      return send(200, page === 1 ? LABELS : []);
    }
    if (url.pathname === "/api/v1/orgs/team/labels" && req.method === "GET")
      return send(200, Number(url.searchParams.get("page") ?? 1) === 1 ? ORG_LABELS : []);
    const labelled = pulls.find((p) => url.pathname === `${repo}/issues/${p.number}/labels`);
    if (labelled !== undefined && req.method === "POST") {
      const ids = body.labels as number[];
      if (!ids.every((id) => ALL_LABELS.some((l) => l.id === id)))
        problems.push(`POST issues labels: unknown ids ${ids}`);
      for (const id of ids) if (!labelled.labels.includes(id)) labelled.labels.push(id);
      return send(
        200,
        ALL_LABELS.filter((l) => labelled.labels.includes(l.id)),
      );
    }
    const path = url.pathname.replace(`${repo}/pulls`, "");
    if (path === "" && req.method === "GET") return send(200, pulls);
    if (path === "" && req.method === "POST") {
      for (const key of ["head", "base", "title"])
        if (typeof body[key] !== "string") problems.push(`POST pulls: ${key} is required`);
      const n = pulls.length + 1;
      const pull = {
        number: n,
        title: String(body.title),
        body: String(body.body ?? ""),
        head: { ref: String(body.head) },
        base: { ref: String(body.base) },
        html_url: `https://gitea.example/${repository}/pulls/${n}`,
        labels: [],
        reviewers: [],
      };
      pulls.push(pull);
      return send(201, pull);
    }
    const reviewed = pulls.find((p) => path === `/${p.number}/requested_reviewers`);
    if (reviewed !== undefined && req.method === "POST") {
      for (const r of body.reviewers as string[])
        if (!reviewed.reviewers.includes(r)) reviewed.reviewers.push(r);
      return send(201, []);
    }
    const pull = pulls.find((p) => path === `/${p.number}`);
    if (pull !== undefined && req.method === "PATCH") {
      Object.assign(pull, { title: body.title ?? pull.title, body: body.body ?? pull.body });
      return send(201, pull);
    }
    problems.push(`unexpected ${req.method} ${req.url}`);
    return send(404, { message: "not found" });
  });
}

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

describe("a run's branch as a Gitea pull request", () => {
  it("opens one (WIP: for a draft) with labels by id and reviewers, then updates it", async () => {
    const p = await deliveryProject("team/app", TOKEN);
    const pulls: Pull[] = [];
    const problems: string[] = [];
    const server = fakeGitea("team/app", pulls, problems);
    const url = await listenLoopback(server);
    closers.push(
      () => p.gitHttp.close(),
      () => closeLoopback(server),
    );
    const config = parseConfigText("autoloop-cron.toml", "", "/srv").config!;
    const text = `[[schedule]]\nname = "simplify"\ncron = "0 2 * * *"\npreset = "simplify"\nobjective = "o"
deliver = { pull_request = { forge = "gitea", base = "main", draft = true, labels = ["bot", "org-wide", "triage"], reviewers = ["alice"], token_file = "${join(p.root, "token")}", api_url = "${url}/api/v1" } }\n`;
    const file = parseScheduleFile("s.toml", text, scheduleDefaults(config), {
      fileDir: "/srv",
      configDir: "/srv",
    });
    const schedule = { ...file.schedules[0]!, projectDir: p.project } as Schedule;
    writeFileSync(join(p.root, "token"), `${TOKEN}\n`);
    const queue = DeliveryQueue.open({ path: join(p.root, "deliveries.jsonl") });
    closers.push(() => queue.close());

    for (const runId of ["run-1", "run-2"]) {
      const d = await runDelivery(schedule, runId, worktreeRun(p.project, runId, `${runId}\n`));
      if (d.kind !== "deliver") throw new Error(d.why);
      queue.enqueue(d.job);
      await queue.deliverDue();
      expect(remoteHead(p, "autoloop/simplify")).toBe(d.job.sha);
      expect(pulls[0]!.labels).toEqual(expect.arrayContaining([11, 21]));
      expect(pulls[0]!.reviewers).toEqual(["alice"]);
      // Someone takes them off, and adds a label of their own: the update puts them back.
      if (runId === "run-1") Object.assign(pulls[0]!, { labels: [12], reviewers: [] });
    }
    expect(pulls[0]!.labels).toEqual([12, 11, 21]);
    // A label the repository lacks is created by no one: a warning, delivered all the same.
    expect(queue.result("run-1")).toMatchObject({
      kind: "delivered",
      warnings: [expect.stringContaining('team/app has no label "triage"')],
    });
    expect(pulls).toHaveLength(1);
    expect(pulls[0]).toMatchObject({
      head: { ref: "autoloop/simplify" },
      base: { ref: "main" },
      title: "WIP: simplify: Simplify: run-2",
    });
    expect(queue.result("run-2")).toMatchObject({
      kind: "delivered",
      action: "updated",
      url: "https://gitea.example/team/app/pulls/1",
    });
    expect(problems).toEqual([]);
  });
});
