// Server-sent events for the status page: one `update` event whenever a run starts, finishes
// or is skipped, an alert goes out, or an operator changes something, so open pages refresh
// their content without a reload.
import type { ServerResponse } from "node:http";

/** Open pages are few; more than this many event streams are refused (503). */
const MAX_CLIENTS = 64;
/** A comment line now and then keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;
/** Bytes queued for a client that stopped reading before it is dropped. */
const MAX_BUFFERED = 256 * 1024;

export class LiveUpdates {
  private readonly clients = new Set<ServerResponse>();
  private keepalive: NodeJS.Timeout | undefined;
  private sequence = 0;

  get size(): number {
    return this.clients.size;
  }

  /** Takes over `res` as an event stream until the client goes away; false when full. */
  subscribe(res: ServerResponse): boolean {
    if (this.clients.size >= MAX_CLIENTS) return false;
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    });
    res.write("retry: 3000\n\n");
    this.clients.add(res);
    res.on("close", () => {
      this.clients.delete(res);
      if (this.clients.size === 0) this.stopKeepalive();
    });
    if (this.keepalive === undefined) {
      this.keepalive = setInterval(() => this.write(": keepalive\n\n"), KEEPALIVE_MS);
      this.keepalive.unref();
    }
    return true;
  }

  /** Tells every open page that `what` changed (e.g. "run.started"). */
  publish(what: string, data: Record<string, string> = {}): void {
    if (this.clients.size === 0) return;
    const payload = JSON.stringify({ what, ...data });
    this.write(`id: ${++this.sequence}\nevent: update\ndata: ${payload}\n\n`);
  }

  close(): void {
    this.stopKeepalive();
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  private write(text: string): void {
    for (const res of this.clients) {
      // A page that does not read its stream is dropped rather than buffered without end.
      if (res.writableLength > MAX_BUFFERED) res.destroy();
      else res.write(text);
    }
  }

  private stopKeepalive(): void {
    clearInterval(this.keepalive);
    this.keepalive = undefined;
  }
}
