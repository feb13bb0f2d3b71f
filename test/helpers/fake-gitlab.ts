// A loopback GitLab REST API (v4) for the merge request calls the daemon makes. GitLab publishes
// no OpenAPI document on npm, so each request is checked against the parameters its API
// documentation requires; tests script failures.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { closeLoopback, listenLoopback, requestText } from "./loopback.js";

type Json = Record<string, unknown>;

export interface FakeMergeRequest {
  iid: number;
  source_branch: string;
  target_branch: string;
  title: string;
  description: string;
  labels: string[];
  reviewer_ids: number[];
  state: "opened" | "closed" | "merged";
  /** Its head commit, and the project it comes from (another one's id: a fork's). */
  sha?: string;
  source_project_id?: number;
}

export interface FakeNote {
  id: number;
  iid: number;
  body: string;
  /** Its author's user id; absent: the token's user. */
  author?: number;
}

/** The token's user, as `GET /user` answers it. */
export const TOKEN_USER = { id: 9, username: "autoloop" };

/** The id of the project the fake serves (a merge request from another id is a fork's). */
export const PROJECT_ID = 42;

const USERS: Record<string, number> = { alice: 7, bob: 8 };

export class FakeGitLab {
  readonly mergeRequests: FakeMergeRequest[] = [];
  readonly notes: FakeNote[] = [];
  readonly problems: string[] = [];
  readonly requests: Array<{ method: string; path: string }> = [];
  readonly failures: Array<{ status: number; headers?: Record<string, string> }> = [];
  url = "";
  private readonly server = createServer((req, res) => void this.handle(req, res));

  constructor(
    private readonly project: string,
    private readonly token: string,
  ) {}

  async start(): Promise<this> {
    this.url = await listenLoopback(this.server);
    return this;
  }

  close(): Promise<void> {
    return closeLoopback(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const url = new URL(req.url ?? "/", this.url);
    const text = await requestText(req);
    const body = text === "" ? {} : (JSON.parse(text) as Json);
    this.requests.push({ method: req.method!, path: url.pathname });
    const send = (status: number, json: unknown, headers: Record<string, string> = {}) =>
      res
        .writeHead(status, { "content-type": "application/json", ...headers })
        .end(JSON.stringify(json));
    if (req.headers["private-token"] !== this.token)
      return send(401, { message: "401 Unauthorized" });
    const failure = this.failures.shift();
    if (failure !== undefined)
      return send(failure.status, { message: "scripted" }, failure.headers);
    const q = url.searchParams;
    if (url.pathname === "/api/v4/user" && req.method === "GET") return send(200, TOKEN_USER);
    if (url.pathname === "/api/v4/users" && req.method === "GET") {
      const id = USERS[q.get("username") ?? ""];
      return send(200, id === undefined ? [] : [{ id, username: q.get("username") }]);
    }
    const base = `/api/v4/projects/${encodeURIComponent(this.project)}/merge_requests`;
    if (!url.pathname.startsWith(base)) return send(404, { message: "404 Project Not Found" });
    const rest = url.pathname.slice(base.length);
    if (rest === "" && req.method === "GET") {
      const found = this.mergeRequests.filter(
        (m) =>
          (q.get("state") ?? m.state) === m.state &&
          (q.get("source_branch") ?? m.source_branch) === m.source_branch &&
          (q.get("target_branch") ?? m.target_branch) === m.target_branch,
      );
      return send(
        200,
        found.map((m) => this.json(m)),
      );
    }
    if (rest === "" && req.method === "POST") {
      for (const key of ["source_branch", "target_branch", "title"])
        if (typeof body[key] !== "string")
          this.problems.push(`POST merge_requests: ${key} is required`);
      const mr: FakeMergeRequest = {
        iid: this.mergeRequests.length + 1,
        source_branch: String(body.source_branch),
        target_branch: String(body.target_branch),
        title: String(body.title),
        description: String(body.description ?? ""),
        labels: typeof body.labels === "string" ? body.labels.split(",") : [],
        reviewer_ids: (body.reviewer_ids as number[] | undefined) ?? [],
        state: "opened",
      };
      this.mergeRequests.push(mr);
      return send(201, this.json(mr));
    }
    const mr = this.mergeRequests.find((m) => `/${m.iid}` === rest);
    if (mr !== undefined && req.method === "GET") return send(200, this.json(mr));
    const notes = /^\/(\d+)\/notes(?:\/(\d+))?$/.exec(rest);
    if (notes !== null) return this.noteAnswer(req.method!, body, Number(notes[1]), notes[2], send);
    if (mr !== undefined && req.method === "PUT") {
      if (typeof body.title === "string") mr.title = body.title;
      if (typeof body.description === "string") mr.description = body.description;
      if (typeof body.add_labels === "string")
        for (const l of body.add_labels.split(",")) if (!mr.labels.includes(l)) mr.labels.push(l);
      // GitLab replaces the reviewers with the list sent.
      if (Array.isArray(body.reviewer_ids)) mr.reviewer_ids = body.reviewer_ids as number[];
      return send(200, this.json(mr));
    }
    this.problems.push(`unexpected ${req.method} ${url.pathname}`);
    return send(404, { message: "404 Not found" });
  }

  /** A merge request's notes: listed, created (`body` required), edited. */
  private noteAnswer(
    method: string,
    body: Json,
    iid: number,
    id: string | undefined,
    send: (status: number, json: unknown) => unknown,
  ) {
    if (!this.mergeRequests.some((m) => m.iid === iid))
      return send(404, { message: "404 Not found" });
    const json = (n: FakeNote) => ({
      id: n.id,
      body: n.body,
      noteable_type: "MergeRequest",
      noteable_iid: n.iid,
      system: false,
      author: { id: n.author ?? TOKEN_USER.id },
    });
    if (method === "GET" && id === undefined)
      return send(200, this.notes.filter((n) => n.iid === iid).map(json));
    if (typeof body.body !== "string") {
      this.problems.push(`${method} notes: body is required`);
      return send(400, { message: "400 body is missing" });
    }
    if (method === "POST" && id === undefined) {
      const note = { id: 500 + this.notes.length, iid, body: body.body };
      this.notes.push(note);
      return send(201, json(note));
    }
    const note = this.notes.find((n) => n.iid === iid && String(n.id) === id);
    if (method !== "PUT" || note === undefined) return send(404, { message: "404 Not found" });
    note.body = body.body;
    return send(200, json(note));
  }

  private json(m: FakeMergeRequest): Json {
    return {
      target_project_id: PROJECT_ID,
      source_project_id: PROJECT_ID,
      ...m,
      id: 100 + m.iid,
      reviewers: m.reviewer_ids.map((id) => ({
        id,
        username: Object.keys(USERS).find((u) => USERS[u] === id),
      })),
      web_url: `https://gitlab.example/${this.project}/-/merge_requests/${m.iid}`,
    };
  }
}
