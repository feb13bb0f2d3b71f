// Server-sent events for the status page: one `update` event whenever a run starts, finishes
// or is skipped, an alert goes out, or an operator changes something, so open pages refresh
// their content without a reload.
import type { ServerResponse } from "node:http";

/**
 * Open pages are few: past this many event streams, the oldest gives way to the new one, so
 * no client can hold every slot (a page left open reconnects in 3 s and takes its turn).
 */
const MAX_CLIENTS = 64;
/** A comment line now and then keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 15_000;
/** Bytes queued for a client that stopped reading before it is dropped. */
const MAX_BUFFERED = 256 * 1024;

export class LiveUpdates {
  /** In the order they subscribed: the first is the oldest. */
  private readonly clients = new Set<ServerResponse>();
  private keepalive: NodeJS.Timeout | undefined;
  private sequence = 0;

  get size(): number {
    return this.clients.size;
  }

  /** Takes over `res` as an event stream until the client goes away (or is the oldest of too many). */
  subscribe(res: ServerResponse): void {
    while (this.clients.size >= MAX_CLIENTS) {
      const oldest = this.clients.values().next().value as ServerResponse;
      this.clients.delete(oldest);
      oldest.destroy();
    }
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
