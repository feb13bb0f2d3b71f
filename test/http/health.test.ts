// Health decisions (pure, fixed instants) and the state-dir write probe on real temp dirs.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { evaluateHealth, type HealthInput } from "../../src/http/health.js";
import {
  cachedWritableProbe,
  probeWritable,
  probeWritableSync,
  type WritableResult,
} from "../../src/util/writable-probe.js";
import { transpileClosure } from "../helpers/transpile.js";

const NOW = Date.parse("2025-03-30T01:00:00Z");

// Root ignores directory modes: as root (CI containers), the read-only case runs the probe in
// a child process with root's privileges dropped to nobody's (setpriv, from util-linux).
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

function probeAsNobody(dir: string): WritableResult {
  const build = tempDir();
  transpileClosure(["src/util/writable-probe.ts"], build);
  const script = join(build, "probe.mjs");
  writeFileSync(
    script,
    `import { probeWritable } from "./src/util/writable-probe.js";\n` +
      "process.stdout.write(JSON.stringify(await probeWritable(process.argv[2])));\n",
  );
  execFileSync("chmod", ["-R", "a+rX", build]);
  chownSync(dir, NOBODY, NOBODY);
  const out = execFileSync(
    "setpriv",
    [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", process.execPath, script, dir],
    { encoding: "utf8" },
  );
  return JSON.parse(out) as WritableResult;
}
const base: HealthInput = {
  now: NOW,
  lastTickAt: NOW - 5000,
  tickIntervalMs: 30_000,
  stateDirWritable: { ok: true },
};

describe("evaluateHealth", () => {
  it("is healthy when the scheduler ticked recently and the state dir is writable", () => {
    const report = evaluateHealth(base);
    expect(report).toEqual({
      ok: true,
      reasons: [],
      checks: {
        scheduler: { ok: true, detail: "last tick 5s ago" },
        state_dir: { ok: true, detail: "writable" },
      },
    });
  });

  it("accepts a tick exactly 3 × the interval old and refuses one a millisecond older", () => {
    expect(evaluateHealth({ ...base, lastTickAt: NOW - 90_000 }).ok).toBe(true);
    const stale = evaluateHealth({ ...base, lastTickAt: new Date(NOW - 90_001) });
    expect(stale.ok).toBe(false);
    expect(stale.reasons).toEqual([
      "scheduler: last tick 1m30s ago, more than 1m30s (3 × 30s); the scheduler loop is stuck or the process is suspended",
    ]);
  });

  it("takes the number of missed ticks as an option", () => {
    const input = { ...base, lastTickAt: NOW - 100_000, staleAfterTicks: 5 };
    expect(evaluateHealth(input).ok).toBe(true);
  });

  it("allows the moments before the first tick, then reports a scheduler that never ticked", () => {
    const starting = { ...base, lastTickAt: undefined, startedAt: NOW - 2000 };
    expect(evaluateHealth(starting).checks.scheduler).toEqual({
      ok: true,
      detail: "starting: no tick yet, 2s after start",
    });
    const never = evaluateHealth({ ...starting, startedAt: NOW - 120_000 });
    expect(never.reasons).toEqual([
      "scheduler: the scheduler has not ticked; expected within 1m30s (3 × 30s)",
    ]);
    expect(evaluateHealth({ ...base, lastTickAt: undefined }).ok).toBe(false);
  });

  it("stays healthy when the clock jumped back behind the last tick", () => {
    const report = evaluateHealth({ ...base, lastTickAt: NOW + 3_600_000 });
    expect(report.ok).toBe(true);
    expect(report.checks.scheduler?.detail).toContain("clock moved back");
  });

  it("reports a state dir that cannot be written, and extra checks, each as a reason", () => {
    const report = evaluateHealth({
      ...base,
      stateDirWritable: { ok: false, error: "EROFS: read-only file system" },
      extraChecks: {
        outbox: { ok: false, detail: "3 dead letters" },
        journals: { ok: true, detail: "2 followed" },
      },
    });
    expect(report.ok).toBe(false);
    expect(report.reasons).toEqual([
      "state_dir: not writable: EROFS: read-only file system",
      "outbox: 3 dead letters",
    ]);
    expect(report.checks.journals).toEqual({ ok: true, detail: "2 followed" });
  });
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) {
    chmodSync(d, 0o700);
    rmSync(d, { recursive: true, force: true });
  }
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "probe-"));
  dirs.push(dir);
  return dir;
};

describe("probeWritable", () => {
  it("has a synchronous twin for the first answer, which no ask then waits for", async () => {
    const state = tempDir();
    expect(probeWritableSync(state)).toEqual({ ok: true });
    expect(readdirSync(state)).toEqual([]);
    expect(probeWritableSync(join(state, "gone")).error).toMatch(/^ENOENT: /);
    // The disk check queued behind a busy thread pool never answers here: the first ask
    // gets the synchronous reading at once.
    const probe = cachedWritableProbe(state, {
      initial: { ok: false, error: "EROFS: read-only file system" },
      probe: () => new Promise<WritableResult>(() => {}),
    });
    expect(await probe()).toEqual({ ok: false, error: "EROFS: read-only file system" });
  });

  it("writes and removes a file, leaving the dir as it was", async () => {
    const state = tempDir();
    expect(await probeWritable(state)).toEqual({ ok: true });
    expect(readdirSync(state)).toEqual([]);
  });

  // Root ignores directory modes, so these cases fail for root too.
  it("fails with ENOTDIR when the state dir's parent is a file", async () => {
    const parent = join(tempDir(), "not-a-dir");
    writeFileSync(parent, "");
    const result = await probeWritable(join(parent, "state"));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^ENOTDIR: not a directory/);
  });

  it("fails when the state dir was removed, or replaced by a file, and never recreates it", async () => {
    const state = join(tempDir(), "state");
    expect((await probeWritable(state)).error).toMatch(/^ENOENT: /);
    writeFileSync(state, "oops");
    expect((await probeWritable(state)).error).toMatch(/^ENOTDIR: /);
  });

  it("fails with EACCES on a read-only dir (as an unprivileged user when run as root)", async () => {
    const parent = tempDir();
    const state = join(parent, "state");
    mkdirSync(state);
    chmodSync(state, 0o500);
    chmodSync(parent, 0o711); // reachable by the unprivileged prober
    try {
      const result = isRoot ? probeAsNobody(state) : await probeWritable(state);
      expect(result.ok).toBe(false);
      expect(result.error).toMatch(/^EACCES: /);
    } finally {
      chmodSync(state, 0o700);
    }
  });
});

describe("cachedWritableProbe", () => {
  it("reuses one result for 5 s, then answers it while checking again, and waits when it is too old", async () => {
    let now = 1_000_000;
    let calls = 0;
    const probe = cachedWritableProbe("/state", {
      now: () => now,
      probe: async () => ({ ok: true, error: String(++calls) }),
    });
    const [a, b] = await Promise.all([probe(), probe()]);
    expect([a.error, b.error]).toEqual(["1", "1"]);
    now += 4999;
    expect((await probe()).error).toBe("1");
    now += 1;
    // Past the TTL: the last result at once, a fresh check behind it.
    expect((await probe()).error).toBe("1");
    expect(calls).toBe(2);
    expect((await probe()).error).toBe("2");
    // More than two TTLs old (here: the clock moved back): wait for the disk.
    now -= 60_000;
    expect((await probe()).error).toBe("3");
    now += 60_000 + 10_001;
    expect((await probe()).error).toBe("4");
  });

  it("probes the real disk by default", async () => {
    const state = tempDir();
    const probe = cachedWritableProbe(state);
    expect(await probe()).toEqual({ ok: true });
    rmSync(state, { recursive: true });
    // Still cached: /healthz hammering does not reach the disk within the TTL.
    expect(await probe()).toEqual({ ok: true });
    mkdirSync(state);
  });
});
