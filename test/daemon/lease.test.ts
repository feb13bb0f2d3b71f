// The daemons' lease: what a daemon does next (pure), one winner among takers of a lapsed
// lease, and a holder that finds the lease taken stops at once.
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import { LeaseFiles, type LeaseRecord, leaseStep } from "../../src/scheduler/daemon/lease.js";
import { LeaseKeeper } from "../../src/scheduler/daemon/lease-keeper.js";
import { fileLeaseStore } from "../../src/scheduler/daemon/lease-store.js";
import { formatProblem } from "../../src/util/errors.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { capturingLogger } from "../helpers/daemon.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

const T0 = Date.parse("2026-11-29T02:00:00Z");
const record = (holder: string, expiresAt: number, generation = 3): LeaseRecord => ({
  v: 1,
  generation,
  holder,
  acquiredAt: new Date(T0 - 60_000).toISOString(),
  renewedAt: new Date(expiresAt - 15_000).toISOString(),
  expiresAt: new Date(expiresAt).toISOString(),
});
const inForce = (r: LeaseRecord) => ({ generation: r.generation, record: r });

describe("leaseStep", () => {
  it("a standby takes a lease never taken, or lapsed, as the next generation; waits on a live one", () => {
    expect(leaseStep(undefined, "b", false, T0, 0)).toEqual({ kind: "take", generation: 1 });
    const a = record("a", T0 + 5000);
    expect(leaseStep(inForce(a), "b", false, T0, 0)).toEqual({
      kind: "wait",
      holder: "a",
      expiresAt: T0 + 5000,
    });
    expect(leaseStep(inForce(a), "b", false, T0 + 5000, 0)).toEqual({
      kind: "take",
      generation: 4,
    });
    // A file that does not read as a lease (a run may write the state dir) counts as lapsed.
    expect(leaseStep({ generation: 7, record: undefined }, "b", false, T0, 0)).toEqual({
      kind: "take",
      generation: 8,
    });
  });

  it("the holder renews only while more than the margin is left, and loses a lease another took", () => {
    const mine = record("a", T0 + 15_000);
    expect(leaseStep(inForce(mine), "a", true, T0, 3750).kind).toBe("renew");
    expect(leaseStep(inForce(mine), "a", true, T0 + 11_250, 3750)).toEqual({
      kind: "lost",
      reason: `not renewed in time (it lapses at ${mine.expiresAt})`,
    });
    expect(leaseStep(inForce(record("b", T0 + 15_000, 4)), "a", true, T0, 3750)).toEqual({
      kind: "lost",
      reason: "taken by b",
    });
  });
});

describe("the lease's files", () => {
  it("of many takers of one lapsed generation, one wins; the others find it taken", () => {
    const dir = tempDir();
    const files = new LeaseFiles(dir);
    expect(files.take(record("a", T0, 1))).toBe(true);
    const won = ["b", "c", "d"].filter((h) => new LeaseFiles(dir).take(record(h, T0 + 9000, 2)));
    expect(won).toEqual(["b"]);
    expect(files.read()?.record?.holder).toBe("b");
  });

  it("a holder whose lease another daemon took says so at its next renewal", async () => {
    const dir = tempDir();
    const { logger } = capturingLogger();
    let now = T0;
    const keeper = new LeaseKeeper(dir, 300, { logger, now: () => now, holder: "a" });
    expect(await keeper.acquire(new Promise(() => {}))).toBe(true);
    const lost: string[] = [];
    keeper.keep((reason) => lost.push(reason));
    try {
      now += 100;
      expect((await keeper.step()).kind).toBe("renew");
      // Another daemon's generation above ours (as after a stall longer than the lease).
      writeFileSync(
        join(dir, "lease", "000000000002.json"),
        `${JSON.stringify(record("b", now + 300, 2))}\n`,
      );
      await waitFor(() => lost.length > 0, "the loss");
      expect(lost).toEqual(["taken by b"]);
    } finally {
      keeper.stop();
    }
  });
});

describe("a holder whose renewal never answers", () => {
  it("gives the lease up when a quarter of it is left, not when the store answers", async () => {
    const dir = tempDir();
    const { logger } = capturingLogger();
    const files = fileLeaseStore(dir);
    // A store whose renewals hang (an API server that accepts and never answers).
    const store = { ...files, renew: () => new Promise<boolean>(() => {}) };
    const keeper = new LeaseKeeper(dir, 600, { logger, store });
    expect(await keeper.acquire(new Promise(() => {}))).toBe(true);
    const expiresAt = Date.parse((await files.read())!.record!.expiresAt);
    const lost: number[] = [];
    keeper.keep(() => lost.push(Date.now()));
    try {
      await waitFor(() => lost.length > 0, "the loss", 3000);
      expect(lost[0]).toBeLessThan(expiresAt);
    } finally {
      keeper.stop();
    }
  });
});

describe("[ha] lease in autoloop-cron.toml", () => {
  it("is off by default, a duration when set, and refused outside its range with the fix", () => {
    const parse = (text: string) => parseConfigText("autoloop-cron.toml", text, "/srv/cron");
    expect(parse("").config?.leaseMs).toBeUndefined();
    expect(parse('[ha]\nlease = "15s"\n').config?.leaseMs).toBe(15_000);
    expect(parse('[ha]\nlease = "200ms"\n').problems.map(formatProblem)).toEqual([
      'autoloop-cron.toml: ha.lease: found "200ms"; expected a duration from "1s" to "10m", such as "15s"',
    ]);
  });
});

describe("a lease file a run planted", () => {
  it("a link or a FIFO in its place reads as no lease (lapsed), never followed or waited on", () => {
    const dir = tempDir();
    const files = new LeaseFiles(dir);
    mkdirSync(files.dir, { recursive: true });
    const target = join(dir, "elsewhere.json");
    writeFileSync(target, `${JSON.stringify(record("run", T0 + 60_000, 1))}\n`);
    symlinkSync(target, join(files.dir, "000000000001.json"));
    expect(files.read()).toEqual({ generation: 1, record: undefined });
    execFileSync("mkfifo", [join(files.dir, "000000000002.json")]);
    expect(files.read()).toEqual({ generation: 2, record: undefined });
  });
});
