// An HTTP server of a test on a random loopback port: started, and closed with its connections.
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Listens on 127.0.0.1 at a free port; resolves with the server's base URL. */
export async function listenLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the server, its open (keep-alive) connections too. */
export function closeLoopback(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A request's whole body, as text. */
export async function requestText(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return text;
}

/** What a loopback fake answers instead of the next request: a status, and headers. */
export interface ScriptedFailure {
  status: number;
  headers?: Record<string, string>;
}
