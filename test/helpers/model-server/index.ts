// A scripted model server on 127.0.0.1 speaking the three APIs the agent CLIs use: Anthropic
// Messages (claude), OpenAI Responses (codex) and Gemini generateContent (gemini). Each
// request is answered by the test's script, streamed the way the real API streams, with usage.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Exchange, Script, Usage } from "./script.js";

export type { Exchange, Script, Step, Turn, Usage } from "./script.js";
export { eventTool, suggestedRoles } from "./script.js";

/** What an API module handles: its paths, and one request's answer. */
export interface ApiHandler {
  matches(method: string, path: string): boolean;
  handle(ctx: HandlerContext): void | Promise<void>;
}

export interface HandlerContext {
  method: string;
  /** The path with its query string. */
  url: string;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body (undefined for a GET or an empty body). */
  body: unknown;
  res: ServerResponse;
  script: Script;
  /** The usage every response reports. */
  usage: Usage;
  record(exchange: Exchange): void;
}

export interface ModelServer {
  /** http://127.0.0.1:<port> */
  url: string;
  exchanges: Exchange[];
  /** Requests no handler took (method and path), for a test to assert there were none that mattered. */
  unhandled: string[];
  close(): Promise<void>;
}

export const DEFAULT_USAGE: Usage = {
  input_tokens: 1200,
  output_tokens: 80,
  cache_read_tokens: 300,
  cache_write_tokens: 50,
};

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function startModelServer(options: {
  script: Script;
  handlers: readonly ApiHandler[];
  usage?: Usage;
}): Promise<ModelServer> {
  const exchanges: Exchange[] = [];
  const unhandled: string[] = [];
  const server = createServer((req, res) => {
    const method = req.method ?? "GET";
    const url = req.url ?? "/";
    const path = url.split("?")[0]!;
    const handler = options.handlers.find((h) => h.matches(method, path));
    readBody(req)
      .then(async (body) => {
        if (handler === undefined) {
          unhandled.push(`${method} ${path}`);
          res.writeHead(404, { "content-type": "application/json" });
          res.end(
            JSON.stringify({ error: { message: `no scripted answer for ${method} ${path}` } }),
          );
          return;
        }
        await handler.handle({
          method,
          url,
          headers: req.headers,
          body,
          res,
          script: options.script,
          usage: options.usage ?? DEFAULT_USAGE,
          record: (e) => exchanges.push(e),
        });
      })
      .catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    unhandled,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
