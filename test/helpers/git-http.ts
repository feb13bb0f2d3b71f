// git's own smart-HTTP server (`git http-backend`, as CGI) behind a loopback HTTP server that
// takes only HTTP Basic with the expected token, as a forge does: pushes in tests go through
// the real protocol, the token handed to git the way the daemon hands it.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { closeLoopback, listenLoopback } from "./loopback.js";

export interface GitHttpServer {
  url: string;
  /** The Authorization headers received (to check no token is sent elsewhere). */
  authorizations: string[];
  /** With `hold`: the requests held so far, each resolving `closed` when its client hangs up. */
  held: Array<{ path: string; closed: Promise<void> }>;
  close(): Promise<void>;
}

/** `hold`: answer no authorized request, as a remote that hangs (a slow fetch never ending). */
export async function startGitHttp(
  root: string,
  token: string,
  options: { hold?: boolean } = {},
): Promise<GitHttpServer> {
  const authorizations: string[] = [];
  const held: GitHttpServer["held"] = [];
  const server: Server = createServer((req, res) => {
    const auth = req.headers.authorization ?? "";
    authorizations.push(auth);
    const [scheme, encoded] = auth.split(" ");
    const password =
      scheme === "Basic"
        ? Buffer.from(encoded ?? "", "base64")
            .toString()
            .split(":")[1]
        : undefined;
    if (password !== token) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="git"' }).end("token refused\n");
      return;
    }
    const url = new URL(req.url ?? "/", "http://x");
    if (options.hold) {
      const closed = new Promise<void>((resolve) => res.on("close", () => resolve()));
      held.push({ path: url.pathname, closed });
      return;
    }
    const cgi = spawn("git", ["http-backend"], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        REMOTE_USER: "autoloop",
        REQUEST_METHOD: req.method ?? "GET",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        ...(req.headers["content-encoding"] && {
          HTTP_CONTENT_ENCODING: req.headers["content-encoding"],
        }),
        ...(req.headers["git-protocol"] && { GIT_PROTOCOL: String(req.headers["git-protocol"]) }),
      },
    });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on("data", (c: Buffer) => chunks.push(c));
    cgi.on("close", () => {
      const out = Buffer.concat(chunks);
      const split = out.indexOf("\r\n\r\n");
      const head = out.subarray(0, split).toString().split("\r\n");
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head) {
        const [k, ...v] = line.split(":");
        if (k!.toLowerCase() === "status") status = Number.parseInt(v.join(":").trim(), 10);
        else headers[k!] = v.join(":").trim();
      }
      res.writeHead(status, headers).end(out.subarray(split + 4));
    });
  });
  const url = await listenLoopback(server);
  return { url, authorizations, held, close: () => closeLoopback(server) };
}
