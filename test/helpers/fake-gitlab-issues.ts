// The issue calls of the loopback GitLab (fake-gitlab.ts): list, show, edit labels and
// description, notes. GitLab publishes no OpenAPI document on npm, so each request is checked
// against the parameters its API documentation names for the endpoint.
import {
  type Answer,
  type Call,
  FakeGitLabServer,
  type Json,
  notFound,
} from "./fake-gitlab-server.js";

export interface FakeGitLabIssue {
  iid: number;
  title: string;
  description: string;
  labels: string[];
  notes: string[];
  /** Who wrote each of `notes` (the same index): a username. */
  noteAuthors: string[];
}

// The query parameters GitLab documents for each call the daemon makes (and pagination's).
const PAGING = ["page", "per_page", "pagination"];
const LIST_PARAMS = new Set(["state", "labels", "order_by", "sort", ...PAGING]);
const NOTES_PARAMS = new Set(["sort", "order_by", ...PAGING]);
const EDIT_BODY = new Set(["add_labels", "remove_labels", "labels", "title", "description"]);

/** The issues of a loopback GitLab; FakeGitLab adds its merge requests. */
export class FakeGitLabIssues extends FakeGitLabServer {
  /** The username of the token's user: the author of every note posted through the API. */
  readonly username = "autoloop-bot";
  readonly issues: FakeGitLabIssue[] = [];
  private readonly userIds = new Map<string, number>();

  add(title: string, description: string, labels = ["agent-ready"]): FakeGitLabIssue {
    const issue = { iid: this.issues.length + 1, title, description, labels };
    const added = { ...issue, notes: [], noteAuthors: [] };
    this.issues.push(added);
    return added;
  }

  /** A note written by another user (`username`), as any member may. */
  plantNote(issue: FakeGitLabIssue, body: string, username: string): void {
    issue.notes.push(body);
    issue.noteAuthors.push(username);
  }

  private params(what: string, names: Iterable<string>, allowed: Set<string>): void {
    for (const n of names)
      if (!allowed.has(n)) this.problems.push(`${what}: ${n} is not a parameter`);
  }

  protected answer({ method, path, query: q, body }: Call): Answer | undefined {
    const rest = this.inProject(path, "issues");
    if (rest === undefined) return notFound("Project");
    const [, iid, notes] = /^(?:\/(\d+)(\/notes)?)?$/.exec(rest) ?? [];
    const issue = this.issues.find((i) => String(i.iid) === iid);
    if (iid === undefined && method === "GET") {
      this.params("GET issues", q.keys(), LIST_PARAMS);
      const label = q.get("labels");
      const found = this.issues.filter((i) => label === null || i.labels.includes(label));
      return { status: 200, answer: found.map((i) => this.issueJson(i)) };
    }
    if (issue === undefined) return notFound("Issue");
    if (notes === undefined && method === "PUT") {
      this.params("PUT issue", Object.keys(body), EDIT_BODY);
      const split = (v: unknown) => (typeof v === "string" ? v.split(",") : []);
      issue.labels = issue.labels.filter((l) => !split(body.remove_labels).includes(l));
      for (const l of split(body.add_labels)) if (!issue.labels.includes(l)) issue.labels.push(l);
      if (typeof body.description === "string") issue.description = body.description;
      return { status: 200, answer: this.issueJson(issue) };
    }
    if (notes === undefined && method === "GET") {
      this.params("GET issue", q.keys(), new Set());
      return { status: 200, answer: this.issueJson(issue) };
    }
    if (notes !== undefined && method === "POST") {
      if (typeof body.body !== "string") this.problems.push("POST notes: body is required");
      this.plantNote(issue, String(body.body), this.username);
      return { status: 201, answer: this.note(issue, issue.notes.length - 1) };
    }
    if (notes === undefined || method !== "GET") return undefined;
    this.params("GET notes", q.keys(), NOTES_PARAMS);
    return { status: 200, answer: issue.notes.map((_, k) => this.note(issue, k)) };
  }

  private issueJson(i: FakeGitLabIssue): Json {
    return {
      id: 100 + i.iid,
      iid: i.iid,
      title: i.title,
      description: i.description,
      state: "opened",
      labels: i.labels,
      web_url: `https://gitlab.example/${this.project}/-/issues/${i.iid}`,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, i.iid)).toISOString(),
    };
  }

  private note(i: FakeGitLabIssue, k: number): Json {
    const username = i.noteAuthors[k] ?? this.username;
    if (!this.userIds.has(username)) this.userIds.set(username, this.userIds.size + 1);
    const author = { id: this.userIds.get(username), username, name: username, state: "active" };
    return { id: i.iid * 1000 + k, body: i.notes[k], author, created_at: "2026-02-01T00:00:00Z" };
  }
}
