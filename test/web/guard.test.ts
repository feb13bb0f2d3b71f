// The status page's guard and bounded journal reading, as pure functions.
import { appendFileSync, writeFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRecord } from "../../src/journal/codec.js";
import { runRecords } from "../../src/operator/run-detail.js";
import { refuseCrossSite, refuseHost, safeBack, tokenMatches } from "../../src/web/guard.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe("the status page's guard", () => {
  it("answers loopback names, IP literals and configured hosts only (DNS rebinding)", () => {
    for (const host of [
      "127.0.0.1:9464",
      "localhost:9464",
      "[::1]:9464",
      "10.1.2.3:9464",
      "[fd00::5]:80",
    ])
      expect(refuseHost(req({ host }), []), host).toBeUndefined();
    expect(refuseHost(req({ host: "rebind.evil.example:9464" }), [])).toContain("[http] hosts");
    expect(
      refuseHost(req({ host: "cron.example.com:9464" }), ["cron.example.com"]),
    ).toBeUndefined();
    expect(refuseHost(req({ host: "Cron.Example.com" }), ["cron.example.com"])).toBeUndefined();
    expect(refuseHost(req({}), [])).toBeDefined();
  });

  it("refuses another origin or a cross-site fetch, and takes only the exact token", () => {
    expect(
      refuseCrossSite(req({ host: "127.0.0.1:1", origin: "http://127.0.0.1:1" })),
    ).toBeUndefined();
    expect(
      refuseCrossSite(req({ host: "127.0.0.1:1", origin: "http://evil.example" })),
    ).toBeDefined();
    expect(refuseCrossSite(req({ host: "127.0.0.1:1", origin: "null" }))).toBeDefined();
    expect(
      refuseCrossSite(req({ host: "127.0.0.1:1", "sec-fetch-site": "same-site" })),
    ).toBeDefined();
    expect(
      refuseCrossSite(req({ host: "127.0.0.1:1", "sec-fetch-site": "same-origin" })),
    ).toBeUndefined();
    expect(tokenMatches("abc", "abc")).toBe(true);
    expect(tokenMatches("abd", "abc")).toBe(false);
    expect(tokenMatches("ab", "abc")).toBe(false);
    expect(tokenMatches(undefined, "abc")).toBe(false);
  });

  it("sends the browser back only to a path of its own", () => {
    expect(safeBack("/runs/x?q=1", "f1")).toBe("/runs/x?q=1&flash=f1");
    expect(safeBack(undefined, "f")).toBe("/?flash=f");
    for (const bad of [
      "//evil.example/x",
      "/.//evil.example",
      "/%2e//evil.example",
      "/a/..//evil.example",
      "https://evil.example/",
      "\\\\evil.example",
    ])
      expect(safeBack(bad, "f"), bad).toMatch(/^\/(?!\/)/);
  });
});

describe("a run's records in a shared journal", () => {
  const record = (run: string, topic: string, i: number) =>
    `${encodeRecord({ shape: "system", run, iteration: String(i), topic, ts: "2026-11-25T10:00:00.000Z", v: 1, fields: { n: String(i) } })}\n`;

  it("reads from the run's offset to its end record, steps included, and no further", () => {
    const path = join(tempDir(), "journal.jsonl");
    writeFileSync(path, record("before", "loop.start", 0));
    const offset = Buffer.byteLength(record("before", "loop.start", 0));
    appendFileSync(path, record("r1", "loop.start", 0) + record("other", "iteration.start", 1));
    appendFileSync(
      path,
      record("r1-step-1", "loop.start", 0) + record("r1-step-x", "loop.start", 0),
    );
    appendFileSync(path, record("r1", "loop.complete", 1) + record("r1", "iteration.start", 9));
    const { records, truncated } = runRecords(path, "r1", offset);
    expect(records.map((r) => `${r.run} ${r.topic}`)).toEqual([
      "r1 loop.start",
      "r1-step-1 loop.start",
      "r1 loop.complete",
    ]);
    expect(truncated).toBe(false);
  });

  it("stops after the bytes it may read, and says so", () => {
    const path = join(tempDir(), "journal.jsonl");
    let text = "";
    for (let i = 0; i < 2000; i++) text += record(i % 2 ? "busy" : "r1", "iteration.start", i);
    writeFileSync(path, text);
    const { records, truncated } = runRecords(path, "r1", 0, 10_000);
    expect(truncated).toBe(true);
    expect(records.length).toBeGreaterThan(10);
    expect(records.length).toBeLessThan(200);
    expect(runRecords(join(tempDir(), "missing.jsonl"), "r1")).toEqual({
      records: [],
      truncated: false,
    });
  });
});
