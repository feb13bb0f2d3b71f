// [retention]: what the state dir keeps of ended runs, on real files in a temp dir.
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { everySixHours, pruneState } from "../../src/scheduler/ledger/retention.js";
import { recordingLogger, tempDirs } from "../fixtures/fake-harness-helpers.js";

const dirs = tempDirs();
afterEach(dirs.cleanup);

const DAY = 86_400_000;
const NOW = Date.parse("2026-11-27T12:00:00Z");

/** A ledger with an old ended run, an old run still going, and a recent ended run. */
function world() {
  const state = dirs.make();
  const ledger = RunLedger.open(state, {
    logger: recordingLogger().logger,
    now: () => new Date(NOW),
  });
  const plan = (runId: string, slot: string) =>
    ledger.schedule({
      runId,
      schedule: "nightly",
      slot: new Date(slot),
      trigger: "cron",
      kind: "command",
      argv: ["true"],
      cwd: state,
    });
  const end = (runId: string) =>
    ledger.finished(runId, { status: "completed", basis: "exit", durationMs: 1, journalPath: "" });
  plan("nightly-20260801T0200-aaaaa", "2026-08-01T02:00:00Z");
  end("nightly-20260801T0200-aaaaa");
  plan("nightly-20260802T0200-bbbbb", "2026-08-02T02:00:00Z"); // still running
  plan("nightly-20261126T0200-ccccc", "2026-11-26T02:00:00Z");
  end("nightly-20261126T0200-ccccc");
  mkdirSync(join(state, "output"));
  mkdirSync(join(state, "history"));
  const old = (file: string, ageMs: number) => {
    writeFileSync(file, "x\n");
    utimesSync(file, (NOW - ageMs) / 1000, (NOW - ageMs) / 1000);
  };
  for (const id of ["nightly-20260801T0200-aaaaa", "nightly-20260802T0200-bbbbb"]) {
    old(join(state, "output", `${id}.log`), 100 * DAY);
    old(join(state, "output", `${id}.exit`), 100 * DAY);
  }
  old(join(state, "output", "nightly-20261126T0200-ccccc.log"), DAY);
  old(join(state, "history", "nightly-20261126T0200-ccccc.md"), 8 * DAY);
  return { state, ledger };
}

describe("retention", () => {
  it("removes ended runs' ledger logs, output and history past their ages; a running run keeps its own", () => {
    const { state, ledger } = world();
    const retention = { runsMs: 90 * DAY, outputMs: 30 * DAY, historyMs: 7 * DAY };
    const pruned = pruneState(state, retention, (id) => ledger.isPending(id), NOW);
    expect(pruned).toEqual({ runs: 1, outputs: 2, histories: 1 });
    expect(existsSync(join(state, "runs", "2026-08-01"))).toBe(false);
    expect(existsSync(join(state, "runs", "2026-08-02", "nightly-20260802T0200-bbbbb.jsonl"))).toBe(
      true,
    );
    expect(existsSync(join(state, "output", "nightly-20260802T0200-bbbbb.log"))).toBe(true);
    expect(existsSync(join(state, "output", "nightly-20261126T0200-ccccc.log"))).toBe(true);
    // The ledger lists what it still has, without complaint.
    const reopened = RunLedger.open(state, { logger: recordingLogger().logger });
    expect(reopened.listRuns().map((r) => r.runId)).toEqual([
      "nightly-20261126T0200-ccccc",
      "nightly-20260802T0200-bbbbb",
    ]);
    // The claimed slot stays claimed: a pruned run's slot never runs again.
    expect(reopened.hasSlot("nightly@2026-08-01T02:00:00.000Z")).toBe(true);
  });

  it('keeps everything with "forever", and prunes at most every six hours', () => {
    const { state, ledger } = world();
    const forever = { runsMs: Infinity, outputMs: Infinity, historyMs: Infinity };
    expect(pruneState(state, forever, () => false, NOW)).toEqual({
      runs: 0,
      outputs: 0,
      histories: 0,
    });
    const lines: string[] = [];
    const logger = { info: (_: object, msg: string) => lines.push(msg), warn: () => {} };
    const retention = { runsMs: 90 * DAY, outputMs: 30 * DAY, historyMs: 7 * DAY };
    const prune = everySixHours({ stateDir: state, retention }, ledger, logger);
    prune(NOW);
    expect(lines).toEqual(["retention: removed what [retention] no longer keeps"]);
    writeFileSync(join(state, "history", "late.md"), "x\n");
    utimesSync(join(state, "history", "late.md"), 0, 0);
    prune(NOW + 5 * 3_600_000);
    expect(existsSync(join(state, "history", "late.md"))).toBe(true);
    prune(NOW + 6 * 3_600_000);
    expect(existsSync(join(state, "history", "late.md"))).toBe(false);
  });

  it("reads [retention] from the config, with defaults, forever, and an error for too short", () => {
    const parse = (text: string) => parseConfigText("autoloop-cron.toml", text, "/srv");
    expect(parse("").config?.retention).toEqual({
      runsMs: 90 * DAY,
      outputMs: 30 * DAY,
      historyMs: 7 * DAY,
    });
    const set = parse('[retention]\nruns = "forever"\noutput = "7d"\n').config;
    expect(set?.retention).toMatchObject({ runsMs: Infinity, outputMs: 7 * DAY });
    const short = parse('[retention]\noutput = "5m"\n');
    expect(short.problems).toMatchObject([{ field: "retention.output", found: '"5m"' }]);
  });

  it("removes a heartbeat a dead host left once its last beat is older than `output`", () => {
    const state = dirs.make();
    const beats = join(state, "heartbeats");
    mkdirSync(beats);
    const beat = (id: string, ageMs: number) => {
      writeFileSync(join(beats, id), "{}\n");
      utimesSync(join(beats, id), (NOW - ageMs) / 1000, (NOW - ageMs) / 1000);
    };
    beat("nightly-20261001T0200-aaaaa", 31 * DAY);
    beat("nightly-20261127T0200-bbbbb", 1000);
    const retention = { runsMs: 90 * DAY, outputMs: 30 * DAY, historyMs: 7 * DAY };
    expect(pruneState(state, retention, () => false, NOW).outputs).toBe(1);
    expect(existsSync(join(beats, "nightly-20261001T0200-aaaaa"))).toBe(false);
    expect(existsSync(join(beats, "nightly-20261127T0200-bbbbb"))).toBe(true);
  });
});
