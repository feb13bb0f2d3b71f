import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GroupCommit } from "../../src/scheduler/ledger/group-commit.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { loadPending } from "../../src/scheduler/ledger/pending.js";
import { recordingLogger, tempDirs } from "../fixtures/fake-harness-helpers.js";

const dirs = tempDirs();
afterEach(dirs.cleanup);

const openFds = (): number => readdirSync("/proc/self/fd").length;
const turn = () => new Promise((r) => setImmediate(r));

describe("GroupCommit: the daemon's ledger writes", () => {
  it("writes each line at once and resolves durable() once the turn's fsyncs are done", async () => {
    const dir = dirs.make();
    const commit = new GroupCommit(recordingLogger().logger);
    const a = join(dir, "a.jsonl");
    commit.appendLine(a, '{"n":1}');
    commit.appendLine(a, '{"n":2}');
    // A reader (or a restart after this process died) sees the lines before any fsync.
    expect(readFileSync(a, "utf8")).toBe('{"n":1}\n{"n":2}\n');
    await commit.durable();
    commit.appendLine(join(dir, "b.jsonl"), '{"n":3}');
    await commit.durable();
    expect(readFileSync(join(dir, "b.jsonl"), "utf8")).toBe('{"n":3}\n');
    await commit.close();
  });

  it("rewrites a file after the turn with the turn's last content, atomically", async () => {
    const dir = dirs.make();
    const commit = new GroupCommit(recordingLogger().logger);
    const path = join(dir, "pending.json");
    commit.writeAtomic(path, "[1]\n");
    commit.writeAtomic(path, "[2]\n");
    await commit.durable();
    expect(readFileSync(path, "utf8")).toBe("[2]\n");
    commit.writeAtomic(path, "[3]\n");
    await turn();
    commit.writeAtomic(path, "[4]\n"); // while the write of [3] may still be in flight
    await commit.durable();
    expect(readFileSync(path, "utf8")).toBe("[4]\n");
    expect(readdirSync(dir)).toEqual(["pending.json"]); // no temp file left behind
    await commit.close();
  });

  it("flushes on its own after the turn, and close() waits for what is in flight", async () => {
    const dir = dirs.make();
    const commit = new GroupCommit(recordingLogger().logger);
    const path = join(dir, "p.json");
    commit.writeAtomic(path, "x\n");
    await commit.close();
    expect(readFileSync(path, "utf8")).toBe("x\n");
  });

  it("keeps no descriptor open once a file's lines are on disk", async () => {
    const dir = dirs.make();
    const commit = new GroupCommit(recordingLogger().logger);
    const before = openFds();
    for (let i = 0; i < 50; i++) commit.appendLine(join(dir, `run-${i}.jsonl`), '{"e":1}');
    expect(openFds()).toBeGreaterThanOrEqual(before + 50);
    await commit.durable();
    expect(openFds()).toBeLessThanOrEqual(before);
    await commit.close();
  });

  it("logs a failed write and still resolves durable(): the ledger never fails a run", async () => {
    const dir = dirs.make();
    const { logger, errors } = recordingLogger();
    const commit = new GroupCommit(logger);
    const blocked = join(dir, "taken");
    mkdirSync(join(blocked, "pending.json"), { recursive: true }); // a folder where the file goes
    commit.writeAtomic(join(blocked, "pending.json"), "[]\n");
    await commit.durable();
    expect(errors).toEqual([
      [
        expect.objectContaining({ what: join(blocked, "pending.json") }),
        "run ledger write failed; the run goes on",
      ],
    ]);
    expect(() => commit.appendLine(join(blocked, "pending.json"), "{}")).toThrow();
    await commit.close();
  });
});

describe("RunLedger with the group commit", () => {
  const plan = (i: number) => ({
    runId: `nightly-20260407T${String(i).padStart(4, "0")}-abcde`,
    schedule: "nightly",
    slot: new Date(Date.UTC(2026, 3, 7, 0, i)),
    trigger: "cron" as const,
    kind: "command" as const,
    argv: ["true"],
    cwd: "/p",
  });

  it("records a run whose pending.json entry lands after the turn", async () => {
    const dir = dirs.make();
    const commit = new GroupCommit(recordingLogger().logger);
    const ledger = RunLedger.open(dir, commit.ledgerDeps());
    ledger.schedule(plan(1));
    expect(ledger.replay(plan(1).runId)?.summary.status).toBe("pending");
    await ledger.durable();
    expect(loadPending(join(dir, "pending.json")).map((e) => e.runId)).toEqual([plan(1).runId]);
    await commit.close();
  });

  // pending.json trails the claims by a turn: after a crash, every claim made about when it
  // was last written is looked at, however many a crowded second made.
  it("finds claims missing from pending.json beyond the newest 32 when they are recent", () => {
    const dir = dirs.make();
    const quiet = recordingLogger().logger;
    // pending.json's rewrites are lost, as if the process died before each one landed.
    const ledger = RunLedger.open(dir, { logger: quiet, writeAtomic: () => {} });
    for (let i = 0; i < 40; i++) ledger.schedule(plan(i));
    writeFileSync(join(dir, "pending.json"), "[]\n");
    const reopened = RunLedger.open(dir, { logger: quiet });
    expect(reopened.strandedClaims().map((c) => c.runId)).toEqual(
      Array.from({ length: 40 }, (_, i) => plan(i).runId),
    );
    // Claims older than a minute before pending.json's last write are not looked at.
    const later = new Date(Date.now() + 3_600_000);
    utimesSync(join(dir, "pending.json"), later, later);
    expect(RunLedger.open(dir, { logger: quiet }).strandedClaims()).toHaveLength(32);
  });
});
