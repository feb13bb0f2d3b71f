import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MonitorFacts } from "../../src/monitor/detect/facts.js";
import { newRunState } from "../../src/monitor/detect/run-state.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "facts-liveness-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `r<pid>` that the ledger shows running with that pid, and a liveness that counts. */
function setup() {
  const asked: number[] = [];
  const dead = new Set<number>();
  const ledger = {
    replay: (id: string) => ({
      summary: { runId: id, status: "running", pid: Number(id.slice(1)) },
      events: [],
    }),
  };
  const facts = new MonitorFacts({
    ledger: () => ledger,
    schedules: () => new Map(),
    invalid: () => [],
    configDir: dir,
    isAlive: (pid: number) => {
      asked.push(pid);
      return !dead.has(pid);
    },
    // The pids are made up: each is taken for its run's launched process.
    processChecks: { isRunProcess: () => true, isHarnessLoop: () => true },
  } as never);
  const run = (pid: number) =>
    newRunState(`r${pid}`, join(dir, `p${pid}`, "journal.jsonl"), "2026-04-07T12:00:00.000Z");
  return { asked, dead, facts, run };
}

describe("MonitorFacts liveness", () => {
  it("a pass over a few runs reuses what the last full pass found; a full pass asks again", () => {
    const { asked, dead, facts, run } = setup();
    const alive = (byRun: ReturnType<typeof facts.collectRuns>, id: string) => byRun.get(id)?.alive;

    const full = facts.collectRuns([run(1001), run(1002)]);
    expect([alive(full, "r1001"), alive(full, "r1002")]).toEqual([true, true]);
    expect(asked).toEqual([1001, 1002]);

    dead.add(1001); // dies after the full pass, having written one last line
    const batch = facts.collectRuns([run(1001), run(1003)], { reuseLiveness: true });
    expect(alive(batch, "r1001")).toBe(true); // as the full pass found it
    expect(alive(batch, "r1003")).toBe(true); // never seen: asked
    expect(asked).toEqual([1001, 1002, 1003]);

    const next = facts.collectRuns([run(1001), run(1002)]);
    expect([alive(next, "r1001"), alive(next, "r1002")]).toEqual([false, true]);
    expect(asked).toEqual([1001, 1002, 1003, 1001, 1002]);
    const after = facts.collectRuns([run(1001), run(1003)], { reuseLiveness: true });
    expect([alive(after, "r1001"), alive(after, "r1003")]).toEqual([false, true]);
    expect(asked.slice(5)).toEqual([1003]); // 1003 was not in the last full pass
  });

  it("a pass that reuses nothing asks about every pid, once per pid", () => {
    const { asked, facts, run } = setup();
    facts.collectRuns([run(7), run(7), run(8)]);
    expect(asked).toEqual([7, 8]);
  });
});
