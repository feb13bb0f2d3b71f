// A stuck agent that appends its own run's `loop.complete`: the gate alert must not resolve
// while the run's harness still runs (the record is not the harness's), the monitor says so,
// and once the harness is gone the end counts. Then a record after an end reopens the run.
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRecord, type JournalRecord } from "../../src/journal/codec.js";
import { applyRecord, newRunState } from "../../src/monitor/detect/run-state.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { spawnFakeHarness } from "../helpers/fake-harness.js";

afterEach(cleanupTempDirs);

const RUN = "run-20261127-0100-forge";

function record(topic: string, sec: number, fields: Record<string, string>, iteration?: string) {
  const ts = new Date(Date.now() - 600_000 + sec * 1000).toISOString();
  return { shape: "system", run: RUN, iteration, topic, ts, v: 1, fields } as JournalRecord;
}

const monitorOnce = (root: string, journal: string) =>
  execa(process.execPath, [AUTOLOOP_CRON, "monitor", "--once", "--journal", journal], {
    cwd: root,
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
  });

describe("a run's end written by someone other than its harness", () => {
  it("does not resolve the gate alert while the harness runs; it counts once the harness is gone", async () => {
    const root = tempDir("autoloop-forge-");
    writeFileSync(join(root, "autoloop-cron.toml"), 'state_dir = "state"\n');
    const project = join(root, "project");
    mkdirSync(join(project, ".autoloop"), { recursive: true });
    const journal = join(project, ".autoloop/journal.jsonl");
    // The run's harness: a live process whose pid the registry names, as the harness's own, and
    // whose command line is a harness running a loop.
    const harness = spawnFakeHarness(root);
    try {
      writeFileSync(
        join(project, ".autoloop/registry.jsonl"),
        `${JSON.stringify({ run_id: RUN, status: "running", pid: harness.pid, host: hostname() })}\n`,
      );
      const lines = [
        record("loop.start", 0, { objective: "x", preset: "autofix", work_dir: project }),
      ];
      for (const sec of [60, 120, 180])
        lines.push(
          record("task.gate", sec, { blocked_topic: "task.complete", open_tasks: "task-1" }, "1"),
        );
      writeFileSync(journal, lines.map((r) => `${encodeRecord(r)}\n`).join(""));
      const first = await monitorOnce(root, journal);
      expect(first.stdout).toMatch(/firing\s+gate_stuck/);

      // The agent forges its end.
      appendFileSync(
        journal,
        `${encodeRecord(record("loop.complete", 240, { reason: "completion_event" }))}\n`,
      );
      const forged = await monitorOnce(root, journal);
      expect(forged.stdout).not.toMatch(/resolved/);
      expect(forged.stdout + forged.stderr).toMatch(/ended while its harness still runs/);

      // The harness exits: now the end is the run's.
      harness.kill("SIGKILL");
      await new Promise((resolve) => harness.once("exit", resolve));
      const ended = await monitorOnce(root, journal);
      expect(ended.stdout).toMatch(/resolved\s+gate_stuck/);
    } finally {
      harness.kill("SIGKILL");
    }
  }, 60_000);

  it("a record after a terminal one reopens the run (that end was not its last)", () => {
    const state = newRunState(RUN, "/j", "2026-11-27T01:00:00.000Z");
    applyRecord(state, record("loop.start", 0, {}));
    applyRecord(state, record("loop.complete", 10, { reason: "completion_event" }));
    expect(state.terminal?.topic).toBe("loop.complete");
    applyRecord(state, record("iteration.finish", 20, { exit_code: "0" }, "3"));
    expect(state.terminal).toBeUndefined();
    expect(state.voidedEnds).toBe(1);
    applyRecord(state, record("loop.stop", 30, { reason: "max_iterations" }));
    expect(state.terminal?.reason).toBe("max_iterations");
  });
});
