// A review on a Gitea pull request: its head checked out (`refs/pull/<n>/head`), a fork's
// refused, and the run's report kept as one comment, edited in place by the next run, through
// Gitea's REST API on a loopback server (requests checked against the fields Gitea's API
// documentation requires).
import { createServer } from "node:http";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import { checkOutReview } from "../../src/scheduler/launch/review-checkout.js";
import type { LaunchSpec } from "../../src/scheduler/launch/spec.js";
import {
  parseScheduleFile,
  type Schedule,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { cleanupTempDirs } from "../helpers/cli.js";
import { deliveryProject, fetchPlaceIn, reviewTwice } from "../helpers/delivery-world.js";
import { git } from "../helpers/git.js";
import { closeLoopback, listenLoopback } from "../helpers/loopback.js";

const TOKEN = "giteareview0123456789abcdef01234";
const ENV = { GITEA_TOKEN: TOKEN };
const REPO = "octo/app";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

interface Comment {
  id: number;
  body: string;
  html_url: string;
  user: { id: number };
}

/** The token's user, whose comments the daemon posts. */
const OWN_USER = { id: 7, login: "autoloop" };

/** Gitea's pull request and issue comment endpoints for pulls #1 (own) and #2 (a fork's). */
function fakeGitea(head: string, comments: Comment[], problems: string[]) {
  return createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    const body = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
    const send = (status: number, json: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
    if (req.headers.authorization !== `token ${TOKEN}`) return send(401, { message: "token" });
    const path = new URL(req.url ?? "/", "http://x").pathname.replace(`/api/v1/repos/${REPO}`, "");
    if (path === "/api/v1/user" && req.method === "GET") return send(200, OWN_USER);
    const pull = /^\/pulls\/([12])$/.exec(path);
    if (pull !== null && req.method === "GET") {
      const fork = pull[1] === "2";
      return send(200, {
        number: Number(pull[1]),
        html_url: `https://gitea.example/${REPO}/pulls/${pull[1]}`,
        title: "A change",
        body: "Review me.",
        head: { sha: head, repo: { full_name: fork ? "mallory/app" : REPO } },
        base: { repo: { full_name: REPO } },
      });
    }
    if (req.method !== "GET" && typeof body.body !== "string")
      problems.push(`${req.method} ${path}: body is required`);
    if (path === "/issues/1/comments" && req.method === "GET") {
      // Gitea pages its answer: at most 50 a page (MAX_RESPONSE_ITEMS), page 1 first.
      const query = new URL(req.url ?? "/", "http://x").searchParams;
      const limit = Math.min(Number(query.get("limit") ?? 50), 50);
      const page = Number(query.get("page") ?? 1);
      return send(200, comments.slice((page - 1) * limit, page * limit));
    }
    if (path === "/issues/1/comments" && req.method === "POST") {
      const id = 900 + comments.length;
      const c = {
        id,
        body: String(body.body),
        html_url: `https://gitea.example/${REPO}/pulls/1#issuecomment-${id}`,
        user: { id: OWN_USER.id },
      };
      comments.push(c);
      return send(201, c);
    }
    const edit = comments.find((c) => path === `/issues/comments/${c.id}`);
    if (edit !== undefined && req.method === "PATCH") {
      edit.body = String(body.body);
      return send(200, edit);
    }
    problems.push(`unexpected ${req.method} ${path}`);
    return send(404, { message: "not found" });
  });
}

async function world() {
  const p = await deliveryProject(REPO, TOKEN);
  const head = git(p.bare, "commit-tree", "-p", "main", "-m", "the change", "main^{tree}").trim();
  git(p.bare, "update-ref", "refs/pull/1/head", head);
  const comments: Comment[] = [];
  const problems: string[] = [];
  const server = fakeGitea(head, comments, problems);
  const url = await listenLoopback(server);
  closers.push(
    () => p.gitHttp.close(),
    () => closeLoopback(server),
  );
  const config = parseConfigText("autoloop-cron.toml", "", "/srv").config!;
  const text = `[[schedule]]\nname = "review-pr"\ncron = "0 2 * * *"\npreset = "review"\nobjective = "Review it"\nproject_dir = "/srv/p"\ndeliver = { review = { forge = "gitea", token_env = "GITEA_TOKEN", api_url = "${url}/api/v1", repository = "${REPO}" } }\n`;
  const file = parseScheduleFile("s.toml", text, scheduleDefaults(config), {
    fileDir: "/srv",
    configDir: "/srv",
  });
  expect(file.problems).toEqual([]);
  const schedule = { ...file.schedules[0]!, projectDir: p.project } as Schedule;
  return { ...p, schedule, head, comments, problems };
}

describe("a review on a Gitea pull request", () => {
  it("checks out its head, refuses a fork's, and keeps the report as one comment", async () => {
    const w = await world();
    const settings = w.schedule.deliver!.review!;
    const spec = {
      kind: "preset",
      schedule: "review-pr",
      cwd: w.project,
      objective: "Review it",
    } as Extract<LaunchSpec, { kind: "preset" }>;
    const ready = await checkOutReview(
      spec,
      { number: 1, settings },
      fetchPlaceIn(w.root, spec),
      ENV,
    );
    expect(ready).toMatchObject({ kind: "ready", spec: { startFrom: { commit: w.head } } });
    const fork = await checkOutReview(
      spec,
      { number: 2, settings },
      fetchPlaceIn(w.root, spec),
      ENV,
    );
    expect(fork).toMatchObject({ kind: "failed", stopReason: "fork_refused" });

    const results = await reviewTwice(w.root, w.project, w.schedule, ENV);
    const url = w.comments[0]!.html_url;
    expect(results).toEqual([
      { kind: "delivered", action: "opened", number: 1, url },
      { kind: "delivered", action: "updated", number: 1, url },
    ]);
    expect(w.comments).toHaveLength(1);
    expect(w.comments[0]!.body).toContain("# Simplify: run-2");
    expect(w.problems).toEqual([]);
  });

  it("leaves alone a marked comment that is not the token's, which Gitea would let it edit", async () => {
    const w = await world();
    // The pull request's author quotes the marker (a writer's token may edit any comment).
    const theirs = {
      id: 500,
      body: "LGTM from the bot\n<!-- autoloop-cron:review:review-pr -->",
      html_url: `https://gitea.example/${REPO}/pulls/1#issuecomment-500`,
      user: { id: 8 },
    };
    w.comments.push({ ...theirs });
    const results = await reviewTwice(w.root, w.project, w.schedule, ENV);
    const ours = w.comments[1]!;
    expect(results).toEqual([
      { kind: "delivered", action: "opened", number: 1, url: ours.html_url },
      { kind: "delivered", action: "updated", number: 1, url: ours.html_url },
    ]);
    expect(w.comments[0]).toEqual(theirs);
    expect(ours.body).toContain("# Simplify: run-2");
    expect(w.problems).toEqual([]);
  });

  it("finds its comment past Gitea's first page of comments", async () => {
    const w = await world();
    for (let i = 0; i < 55; i++)
      w.comments.push({
        id: i + 1,
        body: `chatter ${i}`,
        html_url: `chatter-${i}`,
        user: { id: 8 },
      });
    const results = await reviewTwice(w.root, w.project, w.schedule, ENV);
    expect(results).toMatchObject([{ action: "opened" }, { action: "updated" }]);
    expect(w.comments).toHaveLength(56);
    expect(w.comments[55]!.body).toContain("# Simplify: run-2");
    expect(w.problems).toEqual([]);
  });
});
