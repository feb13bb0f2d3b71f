// The server under the loopback GitHub (fake-github.ts): on a loopback port, it logs each
// request, checks it and its answer against GitHub's OpenAPI document (@octokit/openapi), checks
// the token, and answers scripted failures, holds and refusals before the routes answer.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { ROOT } from "./cli.js";
import { closeLoopback, listenLoopback, requestText, type ScriptedFailure } from "./loopback.js";

import { OpenApiCheck } from "./openapi-check.js";

export type Json = Record<string, unknown>;

export interface Route {
  method: string;
  /** The path as GitHub's document names it: `/repos/{owner}/{repo}/pulls`. */
  template: string;
  pattern: RegExp;
}

/** A request matched to a route: the path's parameters after owner and repo. */
export interface Call {
  route: Route;
  params: string[];
  query: URLSearchParams;
  body: Json | undefined;
}

export interface Answer {
  status: number;
  answer: unknown;
}

/** The routes of a fake, from `[method, template]` pairs. */
export function routes(list: Array<[string, string]>): Route[] {
  return list.map(([method, template]) => ({
    method,
    template,
    pattern: new RegExp(`^${template.replace(/\{[a-z_]+\}/g, "([^/]+)")}$`),
  }));
}

let check: OpenApiCheck | undefined;
/** Loaded once per test file: the document is large. */
export function openApi(): OpenApiCheck {
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

export function validationError(message: string): Json {
  return {
    message,
    documentation_url: "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
    errors: [{ resource: "PullRequest", code: "custom", message }],
  };
}

export function basicError(message: string): Json {
  return { message, documentation_url: "https://docs.github.com/rest" };
}

export abstract class FakeGitHubServer {
  /** Requests and answers that do not conform to GitHub's API document: [] in a passing test. */
  readonly problems: string[] = [];
  readonly requests: Array<{
    method: string;
    path: string;
    authorization?: string;
    body?: unknown;
  }> = [];
  /** Answered, in order, instead of the next requests. */
  readonly failures: ScriptedFailure[] = [];
  /** While set, requests are taken and never answered (a daemon killed mid-call). */
  hold = false;
  /** A status to answer a request with instead (the release comment refused, say), or none. */
  refuse: (request: { method: string; template: string; body?: Json }) => number | undefined = () =>
    undefined;
  url = "";
  protected abstract readonly routes: Route[];
  private readonly server = createServer((req, res) => void this.handle(req, res));

  constructor(
    protected readonly owner: string,
    protected readonly repo: string,
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

  /** The answer of a route to a request that passed every check. */
  protected abstract answer(call: Call): Answer;

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    const text = await requestText(req);
    const body = text === "" ? undefined : (JSON.parse(text) as Json);
    const { authorization } = req.headers;
    this.requests.push({ method: req.method!, path: url.pathname, authorization, body });
    if (this.hold) return;
    const route = this.routes.find((r) => r.method === req.method && r.pattern.test(url.pathname));
    if (route === undefined) {
      this.problems.push(`no such route: ${req.method} ${url.pathname}`);
      return this.error(res, 404, "Not Found");
    }
    const { method, template } = route;
    const wrong = openApi().checkRequest(method, template, url.searchParams, body);
    if (wrong.length > 0) {
      this.problems.push(...wrong.map((p) => `${method} ${template}: ${p}`));
      return this.error(res, 422, "Validation Failed");
    }
    if (authorization !== `token ${this.token}`) return this.error(res, 401, "Bad credentials");
    const failure = this.failures.shift();
    if (failure !== undefined)
      return this.error(res, failure.status, "scripted failure", failure.headers);
    const refused = this.refuse({ method, template, body });
    if (refused !== undefined)
      return this.error(res, refused, refused === 401 ? "Bad credentials" : "Service unavailable");
    const [owner, repo, ...params] = route.pattern.exec(url.pathname)!.slice(1);
    if (owner !== this.owner || repo !== this.repo) return this.error(res, 404, "Not Found");
    const { status, answer } = this.answer({ route, params, query: url.searchParams, body });
    const answerWrong = openApi().checkResponse(method, template, status, answer);
    this.problems.push(...answerWrong.map((p) => `answer to ${method} ${template}: ${p}`));
    res
      .writeHead(status, { "content-type": "application/json; charset=utf-8" })
      .end(JSON.stringify(answer));
  }

  private error(
    res: ServerResponse,
    status: number,
    message: string,
    headers: Record<string, string> = {},
  ) {
    const body =
      status === 422
        ? validationError(message)
        : { ...basicError(message), status: String(status) };
    const wrong = openApi().checkSchema(status === 422 ? "validation-error" : "basic-error", body);
    this.problems.push(...wrong);
    res
      .writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers })
      .end(JSON.stringify(body));
  }
}
