// An orphaned claim (a claim file whose claimer died before the run's ledger line) is retaken
// once, by the second claim file beside it; a young claim, or one whose run has a line or a
// heartbeat, stands.
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { claimFilePath } from "../../src/scheduler/ledger/claim-files.js";
import { type RetakePolicy, retakePath } from "../../src/scheduler/ledger/claim-retake.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { slotKey } from "../../src/scheduler/ledger/slots.js";
import { recordingLogger, tempDirs } from "../fixtures/fake-harness-helpers.js";

const dirs = tempDirs();
afterEach(dirs.cleanup);

const slot = new Date(Date.UTC(2026, 10, 29, 6, 0));
const key = slotKey("nightly", slot);
const DEAD = "nightly-20261129T0600-zzzzz";
const MARGIN = 30_000;
const now = Date.UTC(2026, 10, 29, 6, 10);

function plan(runId: string) {
  const kind = "preset" as const;
  return {
    runId,
    schedule: "nightly",
    slot,
    trigger: "cron" as const,
    kind,
    argv: ["a"],
    cwd: "/p",
  };
}

/** A ledger that retakes claims older than MARGIN at `now`; `beating` names live runs. */
function open(state: string, beating: string[] = []) {
  const retake: RetakePolicy = { afterMs: MARGIN, beating: (id) => beating.includes(id) };
  return RunLedger.open(state, {
    logger: recordingLogger().logger,
    now: () => new Date(now),
    retake,
  });
}

/** The claim file a claimer left before it died, last written `ageMs` before `now`. */
function deadClaim(state: string, ageMs: number, runId = DEAD): string {
  const path = claimFilePath(state, key);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${runId}\n`);
  const at = new Date(now - ageMs);
  utimesSync(path, at, at);
  return path;
}

describe("orphaned slot claims", () => {
  it("are retaken once: of two ledgers (two recovering processes), one claims the slot", () => {
    const state = dirs.make();
    const path = deadClaim(state, MARGIN + 1);
    const a = open(state);
    const b = open(state);
    expect(a.orphanedSlots()).toEqual({ orphaned: [{ schedule: "nightly", slot, runId: DEAD }] });
    expect(b.claimant(key)).toBeUndefined();
    expect(a.schedule(plan("nightly-20261129T0600-aaaaa"))).toEqual({ kind: "claimed", key });
    expect(readFileSync(retakePath(path), "utf8")).toBe("nightly-20261129T0600-aaaaa\n");
    expect(b.schedule(plan("nightly-20261129T0600-bbbbb"))).toEqual({
      kind: "duplicate",
      runId: "nightly-20261129T0600-aaaaa",
    });
    expect(b.claimant(key)).toBe("nightly-20261129T0600-aaaaa");
    // Retaken: no longer orphaned, for either of them or a third opened later.
    expect(a.orphanedSlots()).toEqual({ orphaned: [] });
    expect(b.orphanedSlots()).toEqual({ orphaned: [] });
    expect(open(state).orphanedSlots()).toEqual({ orphaned: [] });
  });

  it("a retake whose retaker died in turn is not retaken again", () => {
    const state = dirs.make();
    const path = deadClaim(state, MARGIN + 1);
    writeFileSync(retakePath(path), "nightly-20261129T0600-yyyyy\n");
    const ledger = open(state);
    expect(ledger.orphanedSlots()).toEqual({ orphaned: [] });
    expect(ledger.schedule(plan("nightly-20261129T0600-aaaaa"))).toEqual({
      kind: "duplicate",
      runId: "nightly-20261129T0600-yyyyy",
    });
  });

  it("leaves a young claim alone, and says when it can be judged", () => {
    const state = dirs.make();
    deadClaim(state, MARGIN - 1000);
    const ledger = open(state);
    expect(ledger.orphanedSlots()).toEqual({ orphaned: [], next: now + 1000 });
    expect(ledger.claimant(key)).toBe(DEAD);
    expect(ledger.schedule(plan("nightly-20261129T0600-aaaaa"))).toEqual({
      kind: "duplicate",
      runId: DEAD,
    });
  });

  it("never retakes a claim whose run has a ledger line or a heartbeat", () => {
    const state = dirs.make();
    const opened = open(state); // before the line: not in its memory
    const claimer = open(state);
    expect(claimer.schedule(plan(DEAD)).kind).toBe("claimed");
    deadClaim(state, MARGIN + 1);
    expect(opened.orphanedSlots()).toEqual({ orphaned: [] });
    expect(opened.schedule(plan("nightly-20261129T0600-aaaaa"))).toEqual({
      kind: "duplicate",
      runId: DEAD,
    });
    const other = dirs.make();
    deadClaim(other, MARGIN + 1);
    expect(open(other, [DEAD]).schedule(plan("nightly-20261129T0600-aaaaa"))).toEqual({
      kind: "duplicate",
      runId: DEAD,
    });
  });

  it("are not retaken by a ledger without a retake policy (readers)", () => {
    const state = dirs.make();
    deadClaim(state, MARGIN + 1);
    const reader = RunLedger.open(state, { logger: recordingLogger().logger });
    expect(reader.orphanedSlots()).toEqual({ orphaned: [] });
    expect(reader.claimant(key)).toBe(DEAD);
  });
});
