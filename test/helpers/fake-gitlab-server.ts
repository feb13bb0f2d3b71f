// The server under the loopback GitLab (fake-gitlab.ts): on a loopback port, it logs each
// request, checks the token and answers scripted failures before the routes answer.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { closeLoopback, listenLoopback, requestText, type ScriptedFailure } from "./loopback.js";

export type Json = Record<string, unknown>;

/** A request that passed the token check and the scripted failures. */
export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Json;
}

export interface Answer {
  status: number;
  answer: unknown;
}

export const notFound = (what: string): Answer => ({
  status: 404,
  answer: { message: `404 ${what} Not Found` },
});

export abstract class FakeGitLabServer {
  /** Requests that do not match what GitLab documents: [] in a passing test. */
  readonly problems: string[] = [];
  readonly requests: Array<{ method: string; path: string }> = [];
  /** Answered, in order, instead of the next requests. */
  readonly failures: ScriptedFailure[] = [];
  url = "";
  private readonly server = createServer((req, res) => void this.handle(req, res));

  constructor(
    protected readonly project: string,
    private readonly token: string,
  ) {}

  async start(): Promise<this> {
    this.url = await listenLoopback(this.server);
    return this;
  }

  close(): Promise<void> {
    return closeLoopback(this.server);
  }

  /** The answer to a request, or undefined for a call the daemon should not make. */
  protected abstract answer(call: Call): Answer | undefined;

  /** The path after `/api/v4/projects/<project>/<collection>`, or undefined outside it. */
  protected inProject(path: string, collection: string): string | undefined {
    const base = `/api/v4/projects/${encodeURIComponent(this.project)}/${collection}`;
    return path.startsWith(base) ? path.slice(base.length) : undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    const text = await requestText(req);
    const body = text === "" ? {} : (JSON.parse(text) as Json);
    const call = { method: req.method!, path: url.pathname, query: url.searchParams, body };
    this.requests.push({ method: call.method, path: call.path });
    const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
      res
        .writeHead(status, { "content-type": "application/json", ...headers })
        .end(JSON.stringify(json));
    };
    if (req.headers["private-token"] !== this.token)
      return send(401, { message: "401 Unauthorized" });
    const failure = this.failures.shift();
    if (failure !== undefined)
      return send(failure.status, { message: "scripted" }, failure.headers);
    const answer = this.answer(call);
    if (answer !== undefined) return send(answer.status, answer.answer);
    this.problems.push(`unexpected ${call.method} ${call.path}`);
    send(404, { message: "404 Not found" });
  }
}
