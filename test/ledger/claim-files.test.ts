// A slot is claimed once across processes sharing a state dir: the claim file, not memory.
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  claimFile,
  claimFilePath,
  createExclusive,
} from "../../src/scheduler/ledger/claim-files.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { pruneState } from "../../src/scheduler/ledger/retention.js";
import { slotKey } from "../../src/scheduler/ledger/slots.js";
import { recordingLogger, tempDirs } from "../fixtures/fake-harness-helpers.js";

const dirs = tempDirs();
afterEach(dirs.cleanup);

const slot = new Date(Date.UTC(2026, 10, 29, 6, 0));
const DAY = 86_400_000;
const quiet = () => recordingLogger().logger;

function plan(runId: string, schedule = "nightly") {
  const kind = "preset" as const;
  return { runId, schedule, slot, trigger: "cron" as const, kind, argv: ["autoloop"], cwd: "/p" };
}

describe("slot claims on the shared filesystem", () => {
  it("two ledgers opened on one state dir (two hosts) cannot both claim a slot", () => {
    const state = dirs.make();
    const a = RunLedger.open(state, { logger: quiet() });
    const b = RunLedger.open(state, { logger: quiet() });
    expect(a.schedule(plan("nightly-20261129T0600-aaaaa")).kind).toBe("claimed");
    expect(b.schedule(plan("nightly-20261129T0600-bbbbb"))).toEqual({
      kind: "duplicate",
      runId: "nightly-20261129T0600-aaaaa",
    });
    // A skip is a claim too, and an attempt's key is a slot of its own.
    expect(b.skip({ ...plan("nightly-20261129T0600-ccccc"), cause: "overlap" }).kind).toBe(
      "duplicate",
    );
    expect(b.schedule({ ...plan("nightly-20261129T0600-ddddd"), attempt: 2 }).kind).toBe("claimed");
    expect(b.claimant(slotKey("nightly", slot))).toBe("nightly-20261129T0600-aaaaa");
    expect(b.claimant(slotKey("nightly", new Date(0)))).toBeUndefined();
  });

  it("a claim file without a ledger line (its claimer died between the two) keeps its slot", () => {
    const state = dirs.make();
    const path = claimFilePath(state, slotKey("nightly", slot));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, "nightly-20261129T0600-zzzzz\n");
    const ledger = RunLedger.open(state, { logger: quiet() });
    expect(ledger.schedule(plan("nightly-20261129T0600-aaaaa"))).toEqual({
      kind: "duplicate",
      runId: "nightly-20261129T0600-zzzzz",
    });
  });

  it("names a file per schedule and key, path-safe, and leaves no temporary file behind", () => {
    const state = dirs.make();
    const key = `${slotKey("nightly", slot)}~2026-11-29T07:00:00.000Z#2`;
    const path = claimFilePath(state, key);
    expect(path).toBe(
      join(
        state,
        "claims",
        "nightly",
        "2026-11-29T06%3A00%3A00.000Z~2026-11-29T07%3A00%3A00.000Z%232",
      ),
    );
    expect(claimFilePath(state, "hooks@hook/../../x")).toBe(
      join(state, "claims", "hooks", "hook%2F..%2F..%2Fx"),
    );
    expect(claimFile(path, "nightly-20261129T0600-aaaaa")).toEqual({ kind: "claimed" });
    expect(claimFile(path, "nightly-20261129T0600-bbbbb")).toEqual({
      kind: "taken",
      runId: "nightly-20261129T0600-aaaaa",
    });
    expect(readdirSync(dirname(path))).toEqual([path.split("/").pop()]);
  });

  it("on a filesystem without hard links, claims by O_EXCL the same way", () => {
    const path = claimFilePath(dirs.make(), slotKey("nightly", slot));
    mkdirSync(dirname(path), { recursive: true });
    expect(createExclusive(path, "nightly-20261129T0600-aaaaa")).toEqual({ kind: "claimed" });
    expect(createExclusive(path, "nightly-20261129T0600-bbbbb")).toEqual({
      kind: "taken",
      runId: "nightly-20261129T0600-aaaaa",
    });
  });

  it("a claim file whose text is no run id still holds its slot, and is not shown", () => {
    const state = dirs.make();
    const path = claimFilePath(state, slotKey("nightly", slot));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, "\u001b]0;pwned\u0007\n");
    const ledger = RunLedger.open(state, { logger: quiet() });
    expect(ledger.schedule(plan("nightly-20261129T0600-aaaaa"))).toEqual({
      kind: "duplicate",
      runId: "(a claim whose run id cannot be read)",
    });
    expect(ledger.claimant(slotKey("nightly", slot))).toBe("");
  });

  it("a claim file that cannot be written leaves the claim in memory, logged", () => {
    const state = dirs.make();
    const log = recordingLogger();
    const ledger = RunLedger.open(state, {
      logger: log.logger,
      claimFile: () => {
        throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
      },
    });
    expect(ledger.schedule(plan("nightly-20261129T0600-aaaaa")).kind).toBe("claimed");
    expect(ledger.schedule(plan("nightly-20261129T0600-bbbbb")).kind).toBe("duplicate");
    expect(existsSync(join(state, "claims"))).toBe(false);
  });

  it("retention removes claim files older than `[retention] runs`, by their age", () => {
    const state = dirs.make();
    const old = claimFilePath(state, slotKey("nightly", slot));
    const fresh = claimFilePath(state, slotKey("nightly", new Date(slot.getTime() + 60_000)));
    claimFile(old, "nightly-20261129T0600-aaaaa");
    claimFile(fresh, "nightly-20261129T0601-bbbbb");
    const now = Date.now();
    utimesSync(old, new Date(now - 2 * DAY), new Date(now - 2 * DAY));
    pruneState(state, { runsMs: DAY, outputMs: DAY, historyMs: DAY }, () => false, now);
    expect([existsSync(old), existsSync(fresh)]).toEqual([false, true]);
  });
});
