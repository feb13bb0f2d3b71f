// The HTTP endpoint on a real loopback socket: /healthz, /metrics, 404/405, HEAD, bind errors.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { evaluateHealth, type HealthReport } from "../../src/http/health.js";
import { Metrics } from "../../src/http/metrics.js";
import { type RunningHttpServer, startHttpServer } from "../../src/http/server.js";
import { UserError } from "../../src/util/errors.js";
import { cachedWritableProbe } from "../../src/util/writable-probe.js";

const servers: RunningHttpServer[] = [];
let dir: string | undefined;
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const silent = pino({ level: "silent" });
const healthy: HealthReport = {
  ok: true,
  reasons: [],
  checks: { scheduler: { ok: true, detail: "x" } },
};

async function start(health: () => HealthReport | Promise<HealthReport> = () => healthy) {
  const metrics = new Metrics({ defaultMetrics: false });
  const server = await startHttpServer({ port: 0, health, metrics, logger: silent });
  servers.push(server);
  return server;
}

/** The daemon's wiring in miniature: a clock, a last tick and the real state-dir probe. */
function daemonHealth(state: { now: number; lastTickAt: number; stateDir: string }) {
  const probe = cachedWritableProbe(state.stateDir, { ttlMs: 0 });
  return async () =>
    evaluateHealth({
      now: state.now,
      lastTickAt: state.lastTickAt,
      tickIntervalMs: 30_000,
      stateDirWritable: await probe(),
    });
}

describe("startHttpServer", () => {
  it("binds 127.0.0.1 by default and answers /healthz with 200 and the checks", async () => {
    const server = await start();
    expect(server.host).toBe("127.0.0.1");
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const res = await fetch(`${server.url}/healthz?verbose=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({ status: "ok", reasons: [], checks: healthy.checks });
  });

  it("answers 503 with reasons when the state dir became a file, then 200 once fixed", async () => {
    dir = mkdtempSync(join(tmpdir(), "http-"));
    const state = { now: 1_000_000, lastTickAt: 995_000, stateDir: join(dir, "state") };
    writeFileSync(state.stateDir, "not a dir");
    const server = await start(daemonHealth(state));
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { status: string; reasons: string[] };
    expect(body.status).toBe("unhealthy");
    expect(body.reasons).toHaveLength(1);
    expect(body.reasons[0]).toMatch(/^state_dir: not writable: ENOTDIR: not a directory/);
    rmSync(state.stateDir);
    state.stateDir = dir;
    const fixed = await start(daemonHealth(state));
    expect((await fetch(`${fixed.url}/healthz`)).status).toBe(200);
  });

  it("answers 503 when the last tick is too old", async () => {
    dir = mkdtempSync(join(tmpdir(), "http-"));
    const state = { now: 1_000_000, lastTickAt: 1_000_000, stateDir: dir };
    const server = await start(daemonHealth(state));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    state.now += 91_000;
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { reasons: string[] }).reasons).toEqual([
      "scheduler: last tick 1m31s ago, more than 1m30s (3 × 30s); the scheduler loop is stuck or the process is suspended",
    ]);
  });

  it("answers 503 when the health check itself throws", async () => {
    const server = await start(async () => {
      throw new Error("ledger unreadable");
    });
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      status: "unhealthy",
      reasons: ["health check failed: Error: ledger unreadable"],
    });
  });

  it("serves /metrics with prom-client's content type, and HEAD without a body", async () => {
    const server = await start();
    const get = await fetch(`${server.url}/metrics`);
    expect(get.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(await get.text()).toContain("# TYPE autoloop_cron_runs_total counter");
    for (const path of ["/metrics", "/healthz"]) {
      const head = await rawRequest(server.port, "HEAD", path);
      expect(head.status).toBe(200);
      expect(head.body).toBe("");
      expect(Number(head.headers["content-length"])).toBeGreaterThan(0);
    }
  });

  it("answers 404 JSON for other paths and 405 with Allow for other methods", async () => {
    const server = await start();
    const missing = await fetch(`${server.url}/`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: "not found",
      endpoints: ["/healthz", "/metrics"],
    });
    expect((await fetch(`${server.url}/healthz/extra`)).status).toBe(404);
    for (const method of ["POST", "PUT", "DELETE", "OPTIONS"]) {
      const res = await fetch(`${server.url}/healthz`, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, HEAD");
      expect(await res.json()).toEqual({ error: "method not allowed", allow: "GET, HEAD" });
    }
  });

  it("says which address is taken and which setting to change on EADDRINUSE", async () => {
    const first = await start();
    const second = startHttpServer({
      port: first.port,
      health: () => healthy,
      metrics: new Metrics({ defaultMetrics: false }),
      logger: silent,
    });
    await expect(second).rejects.toBeInstanceOf(UserError);
    await expect(second).rejects.toThrow(
      `cannot serve /healthz and /metrics on 127.0.0.1:${first.port}: the address is already in use (another autoloop-cron daemon or another program); change [http] listen in the config, or set listen = "" to disable the HTTP server`,
    );
  });

  it("closes promptly despite a keep-alive connection, twice without error, freeing the port", async () => {
    const server = await start();
    await rawRequest(server.port, "GET", "/healthz", true);
    await Promise.all([server.close(), server.close()]);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    const again = await startHttpServer({
      port: server.port,
      health: () => healthy,
      metrics: new Metrics({ defaultMetrics: false }),
      logger: silent,
    });
    servers.push(again);
    expect(again.port).toBe(server.port);
  });
});

/** A request over node:http, for HEAD bodies and keep-alive sockets fetch hides. */
function rawRequest(
  port: number,
  method: string,
  path: string,
  keepAlive = false,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port,
      method,
      path,
      headers: keepAlive ? { Connection: "keep-alive" } : {},
    });
    req.on("error", reject);
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.end();
  });
}
