// A loopback GitLab REST API (v4) for the calls the daemon makes, merge requests and their notes
// here and issues in fake-gitlab-issues.ts. GitLab publishes no OpenAPI document on npm, so each
// request is checked against the parameters its API documentation requires; tests script failures.
import { FakeGitLabIssues } from "./fake-gitlab-issues.js";
import type { Answer, Call, Json } from "./fake-gitlab-server.js";

export type { FakeGitLabIssue } from "./fake-gitlab-issues.js";

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

export class FakeGitLab extends FakeGitLabIssues {
  readonly mergeRequests: FakeMergeRequest[] = [];
  readonly notes: FakeNote[] = [];

  protected override answer(call: Call): Answer | undefined {
    const { method, path, query: q, body } = call;
    if (path === "/api/v4/user" && method === "GET") return { status: 200, answer: TOKEN_USER };
    if (path === "/api/v4/users" && method === "GET") {
      const id = USERS[q.get("username") ?? ""];
      return { status: 200, answer: id === undefined ? [] : [{ id, username: q.get("username") }] };
    }
    const rest = this.inProject(path, "merge_requests");
    if (rest === undefined) return super.answer(call);
    if (rest === "" && method === "GET") {
      const found = this.mergeRequests.filter(
        (m) =>
          (q.get("state") ?? m.state) === m.state &&
          (q.get("source_branch") ?? m.source_branch) === m.source_branch &&
          (q.get("target_branch") ?? m.target_branch) === m.target_branch,
      );
      return { status: 200, answer: found.map((m) => this.mergeRequestJson(m)) };
    }
    if (rest === "" && method === "POST") return this.create(body);
    const mr = this.mergeRequests.find((m) => `/${m.iid}` === rest);
    if (mr !== undefined && method === "GET")
      return { status: 200, answer: this.mergeRequestJson(mr) };
    const notes = /^\/(\d+)\/notes(?:\/(\d+))?$/.exec(rest);
    if (notes !== null) return this.noteAnswer(method, body, Number(notes[1]), notes[2]);
    if (mr === undefined || method !== "PUT") return undefined;
    if (typeof body.title === "string") mr.title = body.title;
    if (typeof body.description === "string") mr.description = body.description;
    if (typeof body.add_labels === "string")
      for (const l of body.add_labels.split(",")) if (!mr.labels.includes(l)) mr.labels.push(l);
    // GitLab replaces the reviewers with the list sent.
    if (Array.isArray(body.reviewer_ids)) mr.reviewer_ids = body.reviewer_ids as number[];
    return { status: 200, answer: this.mergeRequestJson(mr) };
  }

  private create(body: Json): Answer {
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
    return { status: 201, answer: this.mergeRequestJson(mr) };
  }

  /** A merge request's notes: listed, created (`body` required), edited. */
  private noteAnswer(method: string, body: Json, iid: number, id: string | undefined): Answer {
    if (!this.mergeRequests.some((m) => m.iid === iid))
      return { status: 404, answer: { message: "404 Not found" } };
    const json = (n: FakeNote) => ({
      id: n.id,
      body: n.body,
      noteable_type: "MergeRequest",
      noteable_iid: n.iid,
      system: false,
      author: { id: n.author ?? TOKEN_USER.id },
    });
    if (method === "GET" && id === undefined)
      return { status: 200, answer: this.notes.filter((n) => n.iid === iid).map(json) };
    if (typeof body.body !== "string") {
      this.problems.push(`${method} notes: body is required`);
      return { status: 400, answer: { message: "400 body is missing" } };
    }
    if (method === "POST" && id === undefined) {
      const note = { id: 500 + this.notes.length, iid, body: body.body };
      this.notes.push(note);
      return { status: 201, answer: json(note) };
    }
    const note = this.notes.find((n) => n.iid === iid && String(n.id) === id);
    if (method !== "PUT" || note === undefined)
      return { status: 404, answer: { message: "404 Not found" } };
    note.body = body.body;
    return { status: 200, answer: json(note) };
  }

  private mergeRequestJson(m: FakeMergeRequest): Json {
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
