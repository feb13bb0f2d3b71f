// The issue calls of the loopback GitHub (fake-github.ts): list, labels, comments, an issue's
// body read and edited; answers are built from the OpenAPI document's own examples.
import {
  type Answer,
  basicError,
  type Call,
  FakeGitHubServer,
  type Json,
  openApi,
  routes,
} from "./fake-github-server.js";

export interface FakeIssue {
  number: number;
  title: string;
  body: string;
  labels: string[];
  state: "open" | "closed";
  comments: string[];
  /** Who wrote each of `comments` (the same index): a login. */
  commentAuthors: string[];
  createdAt: string;
}

/** The issue calls; a pull request's labels are set through its issue's. */
export const ISSUE_ROUTES = routes([
  ["GET", "/repos/{owner}/{repo}/issues"],
  ["GET", "/repos/{owner}/{repo}/issues/{issue_number}"],
  ["PATCH", "/repos/{owner}/{repo}/issues/{issue_number}"],
  ["POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels"],
  ["DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}"],
  ["GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments"],
  ["POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments"],
]);

/** The issues of a loopback GitHub; FakeGitHub adds its pull requests. */
export class FakeGitHubIssues extends FakeGitHubServer {
  /** The login of the token's user: the author of every comment posted through the API. */
  readonly login = "autoloop-bot";
  readonly issues: FakeIssue[] = [];
  protected readonly routes = ISSUE_ROUTES;

  add(title: string, body: string, labels = ["agent-ready"]): FakeIssue {
    const issue: FakeIssue = {
      number: this.issues.length + 1,
      title,
      body,
      labels,
      state: "open",
      comments: [],
      commentAuthors: [],
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, this.issues.length)).toISOString(),
    };
    this.issues.push(issue);
    return issue;
  }

  /** A comment written by another user (`login`), as anyone may on a public issue. */
  plantComment(issue: FakeIssue, body: string, login: string): void {
    issue.comments.push(body);
    issue.commentAuthors.push(login);
  }

  protected answer({ route, params, query, body }: Call): Answer {
    const { method, template } = route;
    const [n, name] = params;
    const issue = this.issues.find((i) => i.number === Number(n));
    if (n !== undefined && issue === undefined)
      return { status: 404, answer: basicError("Not Found") };
    if (template.endsWith("/issues")) {
      const label = query.get("labels");
      const found = this.issues
        .filter((i) => i.state === "open" && (label === null || i.labels.includes(label)))
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      return { status: 200, answer: found.map((i) => this.issueJson(i)) };
    }
    const it = issue!;
    if (template.endsWith("/{issue_number}")) {
      if (method === "PATCH") it.body = (body as { body: string }).body;
      return { status: 200, answer: this.issueJson(it) };
    }
    if (template.endsWith("/labels")) {
      for (const l of (body as { labels: string[] }).labels)
        if (!it.labels.includes(l)) it.labels.push(l);
      return { status: 200, answer: this.labelsJson(it) };
    }
    if (template.endsWith("/labels/{name}")) {
      const label = decodeURIComponent(name!);
      if (!it.labels.includes(label))
        return { status: 404, answer: basicError("Label does not exist") };
      it.labels = it.labels.filter((l) => l !== label);
      return { status: 200, answer: this.labelsJson(it) };
    }
    if (method === "POST") {
      this.plantComment(it, (body as { body: string }).body, this.login);
      return { status: 201, answer: this.commentJson(it, it.comments.length - 1) };
    }
    return { status: 200, answer: it.comments.map((_, i) => this.commentJson(it, i)) };
  }

  private issueJson(i: FakeIssue): Json {
    return {
      ...openApi().example("issue"),
      id: 5000 + i.number,
      number: i.number,
      title: i.title,
      body: i.body,
      state: i.state,
      labels: this.labelsJson(i),
      html_url: `https://github.example/${this.owner}/${this.repo}/issues/${i.number}`,
      created_at: i.createdAt,
      pull_request: undefined,
    };
  }

  private labelsJson(i: FakeIssue): Json[] {
    const example = (openApi().example("label-items") as unknown as Json[])[0]!;
    return i.labels.map((name, k) => ({ ...example, id: k + 1, name }));
  }

  private commentJson(i: FakeIssue, k: number): Json {
    const example = openApi().example("issue-comment");
    const user = { ...(example.user as Json), login: i.commentAuthors[k] ?? this.login };
    return {
      ...example,
      user,
      id: i.number * 1000 + k,
      body: i.comments[k],
      created_at: new Date(Date.UTC(2026, 1, 1, 0, 0, k)).toISOString(),
    };
  }
}
