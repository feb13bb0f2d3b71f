import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AlertState, alertsPath, type Notification } from "../../src/monitor/alert-state.js";
import type { Condition } from "../../src/monitor/detect/conditions.js";
import { matches, parseMatcher, SilenceStore } from "../../src/monitor/silences.js";
import { writeFileAtomic } from "../../src/util/atomic-write.js";
import { UserError } from "../../src/util/errors.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

const T0 = Date.parse("2026-04-07T12:00:00.000Z");
const MIN = 60_000;
const HOUR = 60 * MIN;
const t = (ms: number) => new Date(T0 + ms);

const gate: Condition = {
  kind: "gate_stuck",
  fingerprint: "gate_stuck:r1:task.complete",
  severity: "critical",
  summary: "gate stuck",
  occurredAt: t(0).toISOString(),
  run: "r1",
  schedule: "nightly-fix",
  gate: { topic: "task.complete", openTasks: [], refusals: 3, since: "x", trigger: "count" },
};
const failed: Condition = {
  kind: "run_failed",
  fingerprint: "run_failed:r2",
  severity: "critical",
  summary: "failed",
  occurredAt: t(0).toISOString(),
  run: "r2",
  reason: "auth_failed",
  outcome: "failed",
};

const brief = (ns: Notification[]) =>
  ns.map((n) => `${n.kind}${n.reminder ?? ""} ${n.fingerprint}`);

function setup() {
  const dir = tempDir();
  const logs: string[] = [];
  const writes: string[] = [];
  const open = () =>
    new AlertState(
      alertsPath(dir),
      {},
      {
        log: (m) => logs.push(m),
        writeAtomic: (path, text) => {
          writes.push(path);
          writeFileAtomic(path, text);
        },
      },
    );
  const ops = new SilenceStore(join(dir, "monitor", "silences.json"), (m) => logs.push(m));
  return { dir, logs, writes, open, ops };
}

describe("alert lifecycle", () => {
  it("fires once, survives a restart silently, and resolves once", () => {
    const { open, writes } = setup();
    const state = open();
    expect(brief(state.reconcile([gate], t(0)))).toEqual([`firing ${gate.fingerprint}`]);
    expect(state.reconcile([gate], t(MIN))).toEqual([]);
    state.save();
    const restarted = open();
    expect(restarted.reconcile([gate], t(2 * MIN))).toEqual([]);
    restarted.save();
    expect(writes).toHaveLength(1); // Nothing changed: nothing rewritten either.
    // A condition that arose while the daemon was down is simply new.
    expect(brief(restarted.reconcile([gate, failed], t(3 * MIN)))).toEqual([
      `firing ${failed.fingerprint}`,
    ]);
    expect(restarted.reconcile([failed], t(4 * MIN))).toEqual([]);
    expect(brief(restarted.reconcile([failed], t(14 * MIN)))).toEqual([
      `resolved ${gate.fingerprint}`,
    ]);
    expect(restarted.get(gate.fingerprint)).toMatchObject({
      phase: "resolved",
      resolvedAt: t(4 * MIN).toISOString(),
    });
    expect(restarted.reconcile([], t(7 * 24 * HOUR + 5 * MIN))).toEqual([]);
    expect(restarted.get(gate.fingerprint)).toBeUndefined();
  });

  it("waits out a pending delay; a pending condition that clears is forgotten", () => {
    const { dir } = setup();
    const state = new AlertState(alertsPath(dir), { pendingMs: 5 * MIN });
    expect(state.reconcile([gate], t(0))).toEqual([]);
    expect(state.get(gate.fingerprint)!.phase).toBe("pending");
    expect(brief(state.reconcile([gate], t(5 * MIN)))).toEqual([`firing ${gate.fingerprint}`]);
    expect(state.reconcile([failed], t(6 * MIN))).toEqual([]);
    expect(state.reconcile([], t(7 * MIN))).toEqual([]);
    expect(state.get(failed.fingerprint)).toBeUndefined();
  });

  it("reminds after 4 h, 8 h more, then every 24 h", () => {
    const { open } = setup();
    const state = open();
    state.reconcile([gate], t(0));
    const sent: string[] = [];
    for (let m = 10; m <= 90 * 60; m += 10) {
      for (const n of state.reconcile([gate], t(m * MIN))) sent.push(`${n.reminder}@${m / 60}h`);
    }
    expect(sent).toEqual(["1@4h", "2@12h", "3@36h", "4@60h", "5@84h"]);
  });

  it("an ack stops reminders until the alert resolves; a re-fire is news again", () => {
    const { open, ops } = setup();
    const state = open();
    state.reconcile([gate], t(0));
    ops.ack(gate.fingerprint, t(HOUR));
    // The ack is told once (for the paging services), then nothing until it resolves.
    expect(brief(state.reconcile([gate], t(2 * HOUR), ops.read()))).toEqual([
      `acknowledged ${gate.fingerprint}`,
    ]);
    for (const h of [4, 12, 50])
      expect(state.reconcile([gate], t(h * HOUR), ops.read())).toEqual([]);
    expect(brief(state.reconcile([], t(51 * HOUR), ops.read()))).toEqual([]);
    expect(brief(state.reconcile([], t(52 * HOUR), ops.read()))).toEqual([
      `resolved ${gate.fingerprint}`,
    ]);
    expect(brief(state.reconcile([gate], t(53 * HOUR), ops.read()))).toEqual([
      `firing ${gate.fingerprint}`,
    ]);
    expect(brief(state.reconcile([gate], t(57 * HOUR), ops.read()))).toEqual([
      `reminder1 ${gate.fingerprint}`,
    ]);
  });

  it("ack --for 4h: reminders resume when it expires", () => {
    const { open, ops } = setup();
    const state = open();
    state.reconcile([gate], t(0));
    ops.ack(gate.fingerprint, t(HOUR), t(5 * HOUR));
    expect(brief(state.reconcile([gate], t(4 * HOUR), ops.read()))).toEqual([
      `acknowledged ${gate.fingerprint}`,
    ]);
    expect(state.reconcile([gate], t(5 * HOUR - 1), ops.read())).toEqual([]);
    expect(brief(state.reconcile([gate], t(5 * HOUR), ops.read()))).toEqual([
      `reminder1 ${gate.fingerprint}`,
    ]);
  });

  it("a silenced condition is tracked quietly and fires when the silence expires", () => {
    const { open, ops } = setup();
    const state = open();
    ops.silence("schedule=nightly-fix", t(2 * HOUR), t(0), "deploy window");
    expect(state.reconcile([gate, failed], t(MIN), ops.read()).map((n) => n.fingerprint)).toEqual([
      failed.fingerprint,
    ]);
    expect(state.get(gate.fingerprint)).toMatchObject({ phase: "firing", notified: false });
    expect(state.reconcile([gate, failed], t(HOUR), ops.read())).toEqual([]);
    expect(brief(state.reconcile([gate, failed], t(2 * HOUR), ops.read()))).toEqual([
      `firing ${gate.fingerprint}`,
    ]);
  });

  it("a condition silenced throughout never notifies, not even its resolution", () => {
    const { open, ops } = setup();
    const state = open();
    ops.silence("kind=gate_stuck", t(24 * HOUR), t(0));
    const quiet = [0, 5 * HOUR, 5 * HOUR + MIN, 5 * HOUR + 20 * MIN];
    const lists = [[gate], [gate], [], []];
    for (const [i, ms] of quiet.entries())
      expect(state.reconcile(lists[i]!, t(ms), ops.read())).toEqual([]);
    expect(state.get(gate.fingerprint)!.phase).toBe("resolved");
  });

  it("flap suppression: clearing and returning within 10 min sends nothing", () => {
    const { open } = setup();
    const state = open();
    const sent: string[] = [];
    const timeline: [number, Condition[]][] = [
      [0, [gate]],
      [1, []],
      [5, [gate]],
      [6, []],
      [9, []],
      [15, [gate]],
      [16, []],
      [25, []],
      [26, []],
      [40, [gate]],
    ];
    for (const [m, cs] of timeline) {
      for (const n of state.reconcile(cs, t(m * MIN))) sent.push(`${n.kind}@${m}`);
    }
    expect(sent).toEqual(["firing@0", "resolved@26", "firing@40"]);
  });
});

describe("alert state file", () => {
  it("starts empty from an unreadable file, logs it and keeps it aside", () => {
    const { dir, open, logs } = setup();
    const path = alertsPath(dir);
    const good = open();
    good.reconcile([gate], t(0));
    good.save();
    writeFileSync(path, "{ torn");
    const state = open();
    expect(state.list()).toEqual([]);
    expect(logs.join("\n")).toMatch(/unreadable alert state, starting empty/);
    expect(existsSync(`${path}.unreadable`)).toBe(true);
    expect(brief(state.reconcile([gate], t(MIN)))).toEqual([`firing ${gate.fingerprint}`]);
    state.save();
    expect(JSON.parse(readFileSync(path, "utf8")).alerts).toHaveLength(1);
  });

  it("writes atomically through writeFileAtomic by default and drops malformed entries", () => {
    const { dir, logs } = setup();
    const state = new AlertState(alertsPath(dir));
    state.reconcile([gate], t(0));
    state.save();
    const doc = JSON.parse(readFileSync(alertsPath(dir), "utf8"));
    doc.alerts.push({ fingerprint: 7 });
    writeFileSync(alertsPath(dir), JSON.stringify(doc));
    const reloaded = new AlertState(alertsPath(dir), {}, { log: (m) => logs.push(m) });
    expect(reloaded.list().map((a) => a.fingerprint)).toEqual([gate.fingerprint]);
    expect(logs).toEqual([`${alertsPath(dir)}: dropped 1 malformed alert entries`]);
  });
});

describe("silences and acks file", () => {
  it("matches schedule=, kind=, run= and fingerprint prefixes, and-ed by commas", () => {
    expect(matches("schedule=nightly-fix", gate)).toBe(true);
    expect(matches("kind=gate_stuck,run=r1", gate)).toBe(true);
    expect(matches("kind=gate_stuck,run=r2", gate)).toBe(false);
    expect(matches("run_failed:", failed)).toBe(true);
    expect(matches("run_failed:", gate)).toBe(false);
    expect(() => parseMatcher("team=core")).toThrow(UserError);
    expect(() => parseMatcher("kind=gate_stuck,")).toThrow(/empty term/);
  });

  it("drops expired silences and acks on write; a bad file reads as none", () => {
    const { ops, logs } = setup();
    const s = ops.silence("kind=run_failed", t(HOUR), t(0));
    ops.ack("a", t(0), t(HOUR));
    ops.ack("b", t(0));
    expect(ops.read().silences.map((x) => x.id)).toEqual([s.id]);
    ops.silence("kind=gate_stuck", t(5 * HOUR), t(2 * HOUR));
    const state = ops.read();
    expect(state.silences.map((x) => x.matcher)).toEqual(["kind=gate_stuck"]);
    expect(state.acks.map((a) => a.fingerprint)).toEqual(["b"]);
    expect(ops.unsilence(state.silences[0]!.id, t(3 * HOUR))).toBe(true);
    expect(ops.read().silences).toEqual([]);
    writeFileSync(ops.path, "nope");
    expect(ops.read()).toEqual({ silences: [], acks: [] });
    expect(logs.join("\n")).toMatch(/not JSON/);
  });
});

describe("saving in the background", () => {
  it("writes one save at a time, the newest state last, a moment later, and retries after a failure", async () => {
    const dir = tempDir();
    const logs: string[] = [];
    const started: string[] = [];
    const releases: Array<() => void> = [];
    let failNext = false;
    const state = new AlertState(
      alertsPath(dir),
      {},
      {
        log: (m) => logs.push(m),
        writeAtomicAsync: async (path, text) => {
          started.push(text);
          await new Promise<void>((resolve) => releases.push(resolve));
          if (failNext) {
            failNext = false;
            throw new Error("disk full");
          }
          writeFileAtomic(path, text);
        },
      },
    );
    const onDisk = () =>
      (JSON.parse(readFileSync(alertsPath(dir), "utf8")).alerts as { fingerprint: string }[]).map(
        (a) => a.fingerprint,
      );
    const nextWrite = (n: number) => waitFor(() => started.length === n, `write ${n}`);

    // Serialized a moment later, not in the pass that asked: two passes make one write.
    state.reconcile([gate], t(0));
    state.saveInBackground();
    state.reconcile([gate, failed], t(MIN));
    state.saveInBackground();
    expect(started).toHaveLength(0);
    await nextWrite(1);
    // A change while that write is under way waits behind it, and goes out after it.
    state.reconcile([failed], t(MIN + 1)); // gate resolves
    state.saveInBackground();
    state.saveInBackground(); // nothing newer: no third write
    releases.shift()!();
    await nextWrite(2);
    releases.shift()!();
    await state.flush();
    expect(started).toHaveLength(2);
    expect(started[1]).not.toBe(started[0]); // the newer state, written last
    expect(onDisk()).toEqual([gate.fingerprint, failed.fingerprint]);

    failNext = true;
    state.reconcile([], t(2 * MIN)); // failed resolves
    state.saveInBackground();
    await nextWrite(3);
    releases.shift()!();
    await state.flush();
    expect(logs.join("\n")).toContain(
      "cannot save the alert state, will try again: Error: disk full",
    );
    state.saveInBackground(); // the same state again: written this time
    await nextWrite(4);
    releases.shift()!();
    await state.flush();
    expect(JSON.parse(readFileSync(alertsPath(dir), "utf8")).alerts).toHaveLength(2);
    expect(started[3]).toBe(started[2]);
  });

  it("writes a background save only once the outbox's records are on disk (beforeSave)", async () => {
    const dir = tempDir();
    let called: () => void = () => {};
    const asked = new Promise<void>((resolve) => {
      called = resolve;
    });
    let outboxOnDisk: () => void = () => {};
    const state = new AlertState(
      alertsPath(dir),
      {},
      {
        log: () => {},
        saveDelayMs: 0,
        beforeSave: () => {
          called();
          return new Promise<void>((resolve) => {
            outboxOnDisk = resolve;
          });
        },
      },
    );
    state.reconcile([gate], t(0));
    state.saveInBackground();
    await asked;
    expect(existsSync(alertsPath(dir))).toBe(false);
    outboxOnDisk();
    await state.flush();
    expect(readFileSync(alertsPath(dir), "utf8")).toContain(gate.fingerprint);
  });

  it("does not save while the outbox is not known to be on disk, and saves once it is", async () => {
    const dir = tempDir();
    const logs: string[] = [];
    let outboxOnDisk = false;
    const state = new AlertState(
      alertsPath(dir),
      {},
      {
        log: (m) => logs.push(m),
        saveDelayMs: 0,
        beforeSave: async () => {
          if (!outboxOnDisk) throw new Error("EIO: fsync failed");
        },
      },
    );
    state.reconcile([gate], t(0));
    state.saveInBackground();
    await state.flush();
    expect(existsSync(alertsPath(dir))).toBe(false);
    expect(logs.join("\n")).toContain("cannot save the alert state, will try again: Error: EIO");
    outboxOnDisk = true;
    state.saveInBackground();
    await state.flush();
    expect(readFileSync(alertsPath(dir), "utf8")).toContain(gate.fingerprint);
  });

  it("drops a save not yet serialized when the pass failed half-way", async () => {
    const dir = tempDir();
    const writes: string[] = [];
    const state = new AlertState(
      alertsPath(dir),
      {},
      {
        log: () => {},
        writeAtomicAsync: async (_path, text) => {
          writes.push(text);
        },
      },
    );
    state.reconcile([gate], t(0));
    state.saveInBackground();
    state.discardPending(); // the live state may hold notifications never enqueued
    await state.flush();
    expect(writes).toEqual([]);
    expect(existsSync(alertsPath(dir))).toBe(false);
  });
});
