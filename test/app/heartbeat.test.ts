// The dead-man's switch against a real HTTP receiver on loopback; only the interval is faked.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type PingOutcome, pingTarget, startHeartbeat } from "../../src/app/heartbeat.js";
import { UserError } from "../../src/util/errors.js";
import { waitFor } from "../helpers/wait.js";

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** A Healthchecks-like receiver that records pings and answers `status` (or never answers). */
async function receiver(opts: { status?: number; hang?: boolean } = {}) {
  const requests: Received[] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method!, url: req.url!, headers: req.headers });
    if (opts.hang) return;
    res.writeHead(opts.status ?? 200).end("OK");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  cleanups.push(close);
  return { requests, port, origin: `http://127.0.0.1:${port}`, close };
}

/** A real pino logger writing to memory, so tests read exactly what operators would. */
function memoryLogger() {
  const lines: string[] = [];
  const logger = pino({ level: "debug" }, { write: (s: string) => void lines.push(s) });
  return { logger, lines, text: () => lines.join("") };
}

const cleanups: Array<() => unknown> = [];
let stops: Array<() => void> = [];
beforeEach(() => {
  // Sockets and the per-ping timeout use real timers; only the heartbeat's interval is fake.
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
});
afterEach(async () => {
  for (const stop of stops) stop();
  stops = [];
  vi.useRealTimers();
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

function start(options: Parameters<typeof startHeartbeat>[0]) {
  const outcomes: PingOutcome[] = [];
  const hb = startHeartbeat({ ...options, onPing: (o) => void outcomes.push(o) });
  stops.push(hb.stop);
  return { hb, outcomes };
}

const MINUTE = 60_000;

describe("startHeartbeat", () => {
  it("pings once at start and then every interval, with GET", async () => {
    const rx = await receiver();
    const log = memoryLogger();
    const { outcomes } = start({
      url: `${rx.origin}/ping/abc-123`,
      intervalMs: 5 * MINUTE,
      isHealthy: () => true,
      deps: { logger: log.logger },
    });
    await waitFor(() => outcomes.length === 1, "the first ping");
    expect(rx.requests).toHaveLength(1);
    expect(rx.requests[0]).toMatchObject({ method: "GET", url: "/ping/abc-123" });
    expect(rx.requests[0]!.headers["user-agent"]).toBe("autoloop-cron heartbeat");
    expect(outcomes[0]).toMatchObject({ kind: "ok", status: 200, fail: false });
    vi.advanceTimersByTime(5 * MINUTE - 1);
    expect(outcomes).toHaveLength(1);
    vi.advanceTimersByTime(1);
    await waitFor(() => outcomes.length === 2, "the interval ping");
    vi.advanceTimersByTime(5 * MINUTE);
    await waitFor(() => outcomes.length === 3, "the next interval ping");
    expect(rx.requests).toHaveLength(3);
  });

  it("skips pings while unhealthy and resumes when healthy again", async () => {
    const rx = await receiver();
    let healthy = false;
    const { outcomes } = start({
      url: `${rx.origin}/ping/abc`,
      intervalMs: MINUTE,
      isHealthy: async () => healthy,
      deps: { logger: memoryLogger().logger },
    });
    await waitFor(() => outcomes.length === 1, "the start decision");
    expect(outcomes[0]).toEqual({ kind: "skipped", why: "unhealthy" });
    healthy = true;
    vi.advanceTimersByTime(MINUTE);
    await waitFor(() => outcomes.length === 2, "the interval ping");
    expect(outcomes[1]?.kind).toBe("ok");
    expect(rx.requests).toHaveLength(1);
  });

  it("pings <url>/fail while unhealthy when a fail suffix is set, keeping the query", async () => {
    const rx = await receiver();
    const { hb } = start({
      url: `${rx.origin}/ping/abc/?rid=7`,
      intervalMs: MINUTE,
      isHealthy: () => false,
      failSuffix: "/fail",
      deps: { logger: memoryLogger().logger },
    });
    await waitFor(() => rx.requests.length === 1, "the fail ping");
    expect(rx.requests[0]?.url).toBe("/ping/abc/fail?rid=7");
    await waitFor(async () => (await hb.ping()).kind === "ok", "a fail ping accepted");
  });

  it("treats a health check that throws as unhealthy", async () => {
    const rx = await receiver();
    const log = memoryLogger();
    const { outcomes } = start({
      url: `${rx.origin}/p`,
      intervalMs: MINUTE,
      isHealthy: () => {
        throw new Error("ledger gone");
      },
      deps: { logger: log.logger },
    });
    await waitFor(() => outcomes.length === 1, "the decision");
    expect(outcomes[0]).toEqual({ kind: "skipped", why: "unhealthy" });
    expect(log.text()).toContain("heartbeat health check threw");
    expect(rx.requests).toHaveLength(0);
  });

  it("logs a 500 from the monitor with only its origin, and keeps going", async () => {
    const rx = await receiver({ status: 500 });
    const log = memoryLogger();
    const { outcomes } = start({
      url: `${rx.origin}/ping/SECRET-UUID?token=SECRET-Q`,
      intervalMs: MINUTE,
      isHealthy: () => true,
      deps: { logger: log.logger },
    });
    await waitFor(() => outcomes.length === 1, "the first ping");
    expect(outcomes[0]).toEqual({ kind: "http_error", status: 500, fail: false });
    vi.advanceTimersByTime(MINUTE);
    await waitFor(() => outcomes.length === 2, "a second attempt");
    const warn = JSON.parse(log.lines[0]!) as { level: number; msg: string; target: string };
    expect(warn.level).toBe(40);
    expect(warn.msg).toBe(`heartbeat to ${rx.origin} failed (http_error)`);
    expect(warn.target).toBe(rx.origin);
    expect(log.text()).not.toContain("SECRET");
  });

  it("logs a monitor that is down without throwing or leaking the URL", async () => {
    const rx = await receiver();
    await rx.close();
    const log = memoryLogger();
    const { hb, outcomes } = start({
      url: `http://ops:hunter2-pass@127.0.0.1:${rx.port}/ping/SECRET-UUID`,
      intervalMs: MINUTE,
      isHealthy: () => true,
      deps: { logger: log.logger },
    });
    await waitFor(() => outcomes.length === 1, "the failed ping");
    expect(outcomes[0]).toMatchObject({ kind: "network_error", fail: false });
    expect((outcomes[0] as { error: string }).error).toContain("ECONNREFUSED");
    await expect(hb.ping()).resolves.toMatchObject({ kind: "network_error" });
    expect(log.text()).toContain(`heartbeat to ${rx.origin} failed (network_error)`);
    expect(log.text()).not.toMatch(/SECRET|hunter2|ops:/);
  });

  it("sends URL credentials as basic auth, never in the request line", async () => {
    const rx = await receiver();
    const log = memoryLogger();
    const { outcomes } = start({
      url: `http://ops:hunter2%21@127.0.0.1:${rx.port}/ping`,
      intervalMs: MINUTE,
      isHealthy: () => true,
      deps: { logger: log.logger },
    });
    await waitFor(() => outcomes.length === 1, "the ping");
    expect(outcomes[0]?.kind).toBe("ok");
    const auth = rx.requests[0]?.headers.authorization ?? "";
    expect(Buffer.from(auth.replace(/^Basic /, ""), "base64").toString()).toBe("ops:hunter2!");
    expect(log.text()).not.toContain("hunter2");
  });

  it("gives up on a monitor that never answers after the timeout, one ping at a time", async () => {
    const rx = await receiver({ hang: true });
    const { hb, outcomes } = start({
      url: `${rx.origin}/slow`,
      intervalMs: MINUTE,
      timeoutMs: 300,
      isHealthy: () => true,
      deps: { logger: memoryLogger().logger },
    });
    await waitFor(() => rx.requests.length === 1, "the ping to arrive");
    // Still waiting on the first: the interval does not pile up a second request.
    vi.advanceTimersByTime(MINUTE);
    expect(await hb.ping()).toEqual({ kind: "skipped", why: "in_flight" });
    await waitFor(() => outcomes.some((o) => o.kind === "timeout"), "the timeout");
    expect(rx.requests).toHaveLength(1);
  });

  it("stop() clears the interval and aborts a ping in flight", async () => {
    const rx = await receiver({ hang: true });
    const { hb, outcomes } = start({
      url: `${rx.origin}/slow`,
      intervalMs: MINUTE,
      isHealthy: () => true,
      deps: { logger: memoryLogger().logger },
    });
    await waitFor(() => rx.requests.length === 1, "the ping to arrive");
    hb.stop();
    await waitFor(() => outcomes.length === 1, "the aborted ping");
    expect(outcomes[0]).toEqual({ kind: "skipped", why: "stopped" });
    vi.advanceTimersByTime(10 * MINUTE);
    expect(vi.getTimerCount()).toBe(0);
    expect(rx.requests).toHaveLength(1);
  });
});

describe("heartbeat URL", () => {
  it("refuses a URL that is not http(s) without quoting it", () => {
    for (const url of ["not a url", "ftp://hc.example/SECRET"]) {
      const run = () =>
        startHeartbeat({ url, intervalMs: MINUTE, isHealthy: () => true, deps: {} });
      expect(run).toThrow(UserError);
      expect(run).toThrow(/^heartbeat_url: not an http\(s\) URL \(value not shown/);
      expect(run).not.toThrow(/SECRET|not a url/);
    }
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("pingTarget", () => {
  it("moves credentials to a header and appends the suffix to the path", () => {
    expect(pingTarget("https://u:p@hc.example/abc?x=1", "/fail")).toEqual({
      href: "https://hc.example/abc/fail?x=1",
      headers: { "User-Agent": "autoloop-cron heartbeat", Authorization: "Basic dTpw" },
    });
    expect(pingTarget("https://hc.example/abc").href).toBe("https://hc.example/abc");
  });
});
