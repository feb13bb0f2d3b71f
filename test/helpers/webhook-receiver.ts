// A webhook channel's receiver on loopback: keeps each alert payload posted to it, answers 204.
import { createServer } from "node:http";
import { closeLoopback, listenLoopback } from "./loopback.js";

export interface PostedAlert {
  type: string;
  data: { kind: string; status: string; schedule?: string; runId?: string; summary: string } & {
    pullRequest?: string;
  };
}

/** Started; `closers` gets what closes it. */
export async function webhookReceiver(closers: Array<() => Promise<unknown>>) {
  const posted: PostedAlert[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      posted.push(JSON.parse(body) as PostedAlert);
      res.writeHead(204).end();
    });
  });
  const url = await listenLoopback(server);
  closers.push(() => closeLoopback(server));
  return { posted, url };
}
