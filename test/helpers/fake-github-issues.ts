// A loopback GitHub REST API for the issue calls the daemon makes (list, labels, comments, an
// issue's body read and edited), every request and answer checked against GitHub's published
// OpenAPI document (@octokit/openapi); answers are built from the document's own examples.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { ROOT } from "./cli.js";
import { closeLoopback, listenLoopback, requestText } from "./loopback.js";
import { OpenApiCheck } from "./openapi-check.js";

type Json = Record<string, unknown>;

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

let check: OpenApiCheck | undefined;
function openApi(): OpenApiCheck {
  const path = join(ROOT, "node_modules/@octokit/openapi/generated/api.github.com.json");
  check ??= new OpenApiCheck(typedNullables(JSON.parse(readFileSync(path, "utf8"))) as Json);
  return check;
}

/**
 * The issue schemas say `nullable` beside `allOf`/`anyOf` without a `type`, which ajv refuses:
 * written as "this, or null", which is what OpenAPI 3.0 means by it.
 */
function typedNullables(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(typedNullables);
  if (node === null || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = typedNullables(v);
  if (out.nullable !== true || out.type !== undefined) return out;
  const { nullable: _, ...rest } = out;
  return { anyOf: [rest, { type: "null" }] };
}

const ROUTES = [
  ["GET", "/repos/{owner}/{repo}/issues"],
  ["GET", "/repos/{owner}/{repo}/issues/{issue_number}"],
  ["PATCH", "/repos/{owner}/{repo}/issues/{issue_number}"],
  ["POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels"],
  ["DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}"],
  ["GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments"],
  ["POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments"],
].map(([method, template]) => ({
  method: method!,
  template: template!,
  pattern: new RegExp(`^${template!.replace(/\{[a-z_]+\}/g, "([^/]+)")}$`),
}));

export class FakeGitHubIssues {
  /** The login of the token's user: the author of every comment posted through the API. */
  readonly login = "autoloop-bot";
  readonly issues: FakeIssue[] = [];
  /** Requests and answers that do not conform to GitHub's API document: [] in a passing test. */
  readonly problems: string[] = [];
  readonly requests: Array<{ method: string; path: string; authorization?: string }> = [];
  /** Statuses answered, in order, instead of the next requests. */
  readonly failures: number[] = [];
  /** A status to answer a request with instead (the release comment refused, say), or none. */
  refuse: (request: { method: string; template: string; body?: Json }) => number | undefined = () =>
    undefined;
  url = "";
  private readonly server = createServer((req, res) => void this.handle(req, res));

  constructor(
    private readonly owner: string,
    private readonly repo: string,
    private readonly token: string,
  ) {}

  async start(): Promise<this> {
    openApi();
    this.url = await listenLoopback(this.server);
    return this;
  }

  close(): Promise<void> {
    return closeLoopback(this.server);
  }

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

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    const text = await requestText(req);
    const body = text === "" ? undefined : (JSON.parse(text) as Json);
    this.requests.push({
      method: req.method!,
      path: url.pathname,
      ...(req.headers.authorization !== undefined && { authorization: req.headers.authorization }),
    });
    const route = ROUTES.find((r) => r.method === req.method && r.pattern.test(url.pathname));
    if (route === undefined) {
      this.problems.push(`no such route: ${req.method} ${url.pathname}`);
      return this.send(res, route, 404, basicError("Not Found"));
    }
    const wrong = openApi().checkRequest(route.method, route.template, url.searchParams, body);
    if (wrong.length > 0) {
      this.problems.push(...wrong.map((p) => `${route.method} ${route.template}: ${p}`));
      return this.send(res, route, 422, basicError("Validation Failed"));
    }
    if (req.headers.authorization !== `token ${this.token}`)
      return this.send(res, undefined, 401, basicError("Bad credentials"));
    const failure = this.failures.shift();
    if (failure !== undefined) return this.send(res, undefined, failure, basicError("scripted"));
    const refused = this.refuse({ method: route.method, template: route.template, body });
    if (refused !== undefined)
      return this.send(
        res,
        undefined,
        refused,
        basicError(refused === 401 ? "Bad credentials" : "Service unavailable"),
      );
    const [owner, repo, n, name] = route.pattern.exec(url.pathname)!.slice(1);
    const issue = this.issues.find((i) => i.number === Number(n));
    if (owner !== this.owner || repo !== this.repo || (n !== undefined && issue === undefined))
      return this.send(res, route, 404, basicError("Not Found"));
    const { status, answer } = this.answer(route.method, route.template, url, body, issue, name);
    this.send(res, route, status, answer);
  }

  private answer(
    method: string,
    template: string,
    url: URL,
    body: Json | undefined,
    issue: FakeIssue | undefined,
    name: string | undefined,
  ): { status: number; answer: unknown } {
    if (template.endsWith("/issues")) {
      const label = url.searchParams.get("labels");
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

  private send(
    res: ServerResponse,
    route: { method: string; template: string } | undefined,
    status: number,
    answer: unknown,
  ): void {
    if (route !== undefined) {
      const wrong = openApi().checkResponse(route.method, route.template, status, answer);
      this.problems.push(...wrong.map((p) => `answer to ${route.method} ${route.template}: ${p}`));
    }
    res
      .writeHead(status, { "content-type": "application/json; charset=utf-8" })
      .end(JSON.stringify(answer));
  }
}

function basicError(message: string): Json {
  return { message, documentation_url: "https://docs.github.com/rest/issues" };
}
