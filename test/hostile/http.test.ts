// The daemon's HTTP endpoint against a hostile browser or a greedy local client: /healthz and
// /metrics refuse a rebinding host name, one client cannot hold every live-update slot, and a
// form's `back` that is not a path of the page never breaks the answer.
import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { safeBack } from "../../src/web/guard.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { startDaemonProcess } from "./daemon-process.js";

afterEach(cleanupTempDirs);

/** A GET with the Host header of the test's choosing (fetch forbids setting it). */
function getWithHost(url: string, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Opens /events and resolves once the stream has started; the request is returned to end it. */
function openStream(url: string): Promise<{ destroyed: Promise<void>; end(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/events`, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
      const destroyed = new Promise<void>((done) => res.once("close", () => done()));
      res.once("data", () => resolve({ destroyed, end: () => req.destroy() }));
    });
    req.on("error", () => {});
    req.end();
  });
}

describe("the daemon's HTTP endpoint, on loopback", () => {
  it("refuses /healthz and /metrics to a rebinding host name, serves them by IP and localhost", async () => {
    const daemon = await startDaemonProcess(tempDir("autoloop-http-"), "");
    try {
      for (const path of ["/healthz", "/metrics"]) {
        expect(await getWithHost(daemon.url, path, "attacker.example:80")).toBe(421);
        expect(await getWithHost(daemon.url, path, new URL(daemon.url).host)).toBe(200);
        expect(await getWithHost(daemon.url, path, `localhost:${new URL(daemon.url).port}`)).toBe(
          200,
        );
      }
    } finally {
      await daemon.stop();
    }
  }, 60_000);

  it("lets a new page in when 64 streams are open: the oldest gives way", async () => {
    const daemon = await startDaemonProcess(tempDir("autoloop-http-"), "");
    const streams: Array<Awaited<ReturnType<typeof openStream>>> = [];
    try {
      for (let i = 0; i < 64; i++) streams.push(await openStream(daemon.url));
      const newcomer = await openStream(daemon.url);
      await streams[0]!.destroyed; // the first one held was let go
      streams.push(newcomer);
    } finally {
      for (const s of streams) s.end();
      await daemon.stop();
    }
  }, 60_000);
});

describe("a form's back link", () => {
  it("is a path of the page, whatever the form said", () => {
    expect(safeBack("javascript:alert(1)", "f")).toBe("/?flash=f");
    expect(safeBack("data:text/html,x", "f")).toBe("/?flash=f");
    expect(safeBack("https://evil.example/x", "f")).toBe("/?flash=f");
    expect(safeBack("/schedules/nightly", "f")).toBe("/schedules/nightly?flash=f");
  });
});
