// The daemon's own first /healthz request, before the schedules load.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { selfCheck } from "../../src/app/observability.js";

function recorder() {
  const lines: { level: string; msg: string }[] = [];
  return {
    lines,
    debug: (_: unknown, msg: string) => lines.push({ level: "debug", msg }),
    warn: (_: unknown, msg: string) => lines.push({ level: "warn", msg }),
  };
}

describe("selfCheck", () => {
  it("asks the endpoint for /healthz once and says it answered", async () => {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      res.end("{}");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    const log = recorder();
    await selfCheck(`http://127.0.0.1:${port}`, log as never);
    await new Promise((r) => server.close(r));
    expect(asked).toEqual(["GET /healthz"]);
    expect(log.lines).toEqual([
      { level: "debug", msg: "/healthz answered the daemon's own request" },
    ]);
  });

  it("warns, and goes on, when nothing answers", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    await new Promise((r) => server.close(r)); // the port is free again: connection refused
    const log = recorder();
    await selfCheck(`http://127.0.0.1:${port}`, log as never);
    expect(log.lines.map((l) => l.level)).toEqual(["warn"]);
  });
});
