// A forged or stale pending.json must not let `stop` or adoption signal a process that is not
// the run's harness: pid 1 (kill(-1) would reach everything), a live stranger, a reused pid.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { recoverPending } from "../../src/scheduler/daemon/recovery.js";
import { isRunProcess, readProcessStartTime } from "../../src/scheduler/launch/identity.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { isProcessAlive, signalGroup } from "../../src/util/process.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger } from "../helpers/daemon.js";

const children: number[] = [];
afterEach(() => {
  for (const pid of children.splice(0)) signalGroup(pid, "SIGKILL");
  cleanupTempDirs();
});

/** A live process in its own group, with or without the run's marker in its environment. */
function sleeper(runId?: string): number {
  const env = { ...process.env, ...(runId && { AUTOLOOP_CRON_RUN_ID: runId }) };
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], {
    detached: true,
    stdio: "ignore",
    env,
  });
  child.unref();
  children.push(child.pid!);
  return child.pid!;
}

function forgePending(state: string, runId: string, pid: number, startTime?: string): void {
  mkdirSync(state, { recursive: true });
  const entry = {
    runId,
    schedule: "nightly",
    slot: "2026-11-20T02:00:00.000Z",
    key: "nightly@2026-11-20T02:00:00.000Z",
    kind: "command",
    trigger: "cron",
    cwd: state,
    scheduledAt: "2026-11-20T02:00:00.000Z",
    pid,
    ...(startTime && { startTime }),
  };
  writeFileSync(join(state, "pending.json"), JSON.stringify([entry]));
}

describe("isRunProcess", () => {
  it("accepts only the run's own group leader carrying its id, with its start time", () => {
    const run = "nightly-20261120T0200-ab12c";
    const ours = sleeper(run);
    const stranger = sleeper();
    expect(isRunProcess(ours, run, readProcessStartTime(ours))).toBe(true);
    expect(isRunProcess(ours, run)).toBe(true);
    expect(isRunProcess(ours, "nightly-other", readProcessStartTime(ours))).toBe(false);
    expect(isRunProcess(ours, run, "12345")).toBe(false); // a reused pid
    expect(isRunProcess(stranger, run, readProcessStartTime(stranger))).toBe(false);
    for (const pid of [1, 0, -1]) expect(isRunProcess(pid, run)).toBe(false);
  });

  it("never signals -1, 0 or 1", () => {
    for (const pid of [1, 0, -1]) expect(signalGroup(pid, "SIGCONT")).toBe(false);
  });
});

describe("a forged pending.json", () => {
  it("makes `autoloop-cron stop` refuse, and the stranger lives on", async () => {
    const root = tempDir("autoloop-hostile-");
    writeFileSync(join(root, "autoloop-cron.toml"), 'state_dir = "state"\n[http]\nlisten = ""\n');
    const stranger = sleeper();
    const runId = "nightly-20261120T0200-ab12c";
    forgePending(join(root, "state"), runId, stranger, readProcessStartTime(stranger));
    const stop = await execa(process.execPath, [AUTOLOOP_CRON, "stop", runId], {
      cwd: root,
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
    });
    expect(stop.exitCode).toBe(1);
    expect(stop.stderr).toContain(`refusing to signal pid ${stranger} for run ${runId}`);
    expect(isProcessAlive(stranger)).toBe(true);

    forgePending(join(root, "state"), runId, 1);
    const one = await execa(process.execPath, [AUTOLOOP_CRON, "stop", runId], {
      cwd: root,
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
    });
    expect(one.exitCode).toBe(1);
    expect(one.stderr).toContain("refusing to signal pid 1");
  });

  it("is not adopted by a restarted daemon: the entry is closed as interrupted", () => {
    const state = tempDir("autoloop-hostile-");
    const stranger = sleeper();
    const runId = "nightly-20261120T0200-ab12c";
    forgePending(state, runId, stranger, readProcessStartTime(stranger));
    const ledger = RunLedger.open(state, { logger: silentLogger });
    const actions = recoverPending(ledger);
    expect(actions.map((a) => a.kind)).toEqual(["interrupted"]);
    expect(isProcessAlive(stranger)).toBe(true);
  });
});
