import { existsSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stopRun } from "../../src/operator/run-actions.js";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import { recoverPending } from "../../src/scheduler/daemon/recovery.js";
import {
  decodeHeartbeat,
  encodeHeartbeat,
  heartbeatPath,
  readHeartbeat,
} from "../../src/scheduler/launch/heartbeat-file.js";
import { RunHeartbeats } from "../../src/scheduler/launch/heartbeats.js";
import { hostIdOf } from "../../src/scheduler/launch/host-id.js";
import { remoteLiveness, runLiveness } from "../../src/scheduler/launch/run-liveness.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger } from "../helpers/daemon.js";

afterEach(cleanupTempDirs);

const RUN = newScheduledRunId("nightly", new Date("2026-04-07T12:00:00Z"));
const T = Date.parse("2026-04-07T12:00:00Z");
const beat = (host: string, intervalMs = 1000, beatAt = T) => ({
  heartbeat: { runId: RUN, schedule: "nightly", host, pid: 42, intervalMs },
  beatAt,
});

describe("remoteLiveness: a heartbeat written on another host", () => {
  it("judges by process here without one, or when it is this host's", () => {
    expect(remoteLiveness(undefined, "a", T)).toBeUndefined();
    expect(remoteLiveness(beat("a"), "a", T + 3_600_000)).toBeUndefined();
  });

  it("is alive up to three missed beats, dead after", () => {
    expect(remoteLiveness(beat("b"), "a", T + 3000)).toEqual({
      where: "elsewhere",
      alive: true,
      host: "b",
      beatAt: T,
    });
    expect(remoteLiveness(beat("b"), "a", T + 3001)?.alive).toBe(false);
    // That host's clock ahead of ours: fresh, as it is.
    expect(remoteLiveness(beat("b"), "a", T - 60_000)?.alive).toBe(true);
  });

  it("caps the interval a heartbeat claims at five minutes", () => {
    const year = 365 * 86_400_000;
    expect(remoteLiveness(beat("b", year), "a", T + 900_000)?.alive).toBe(true);
    expect(remoteLiveness(beat("b", year), "a", T + 900_001)?.alive).toBe(false);
  });

  it("tells hosts apart by boot and PID namespace, not by name alone", () => {
    const a = hostIdOf({ hostname: "web-1", bootId: "b1", pidNamespace: "4026531836" });
    expect(a).toBe("web-1:b1:4026531836");
    expect(hostIdOf({ hostname: "web-1", bootId: "b1", pidNamespace: "4026532178" })).not.toBe(a);
    expect(hostIdOf({ hostname: "web-1" })).toBe("web-1::");
  });
});

describe("run_heartbeat_interval", () => {
  it("defaults to 10 s and refuses what no launcher could keep to", () => {
    const parse = (text: string) => parseConfigText("autoloop-cron.toml", text, "/srv");
    expect(parse("").config?.runHeartbeatMs).toBe(10_000);
    expect(parse('run_heartbeat_interval = "2s"').config?.runHeartbeatMs).toBe(2000);
    for (const bad of ['"10m"', '"50ms"', '"soon"'])
      expect(parse(`run_heartbeat_interval = ${bad}`).problems).toMatchObject([
        { field: "run_heartbeat_interval", found: bad },
      ]);
  });
});

describe("heartbeat files", () => {
  it("round-trips, and refuses foreign content and unsafe run ids", () => {
    const base = { runId: RUN, schedule: "nightly", host: "a:b:1", pid: 7, startTime: "99" };
    const h = { ...base, intervalMs: 10_000 };
    expect(decodeHeartbeat(encodeHeartbeat(h))).toEqual(h);
    expect(decodeHeartbeat('{"v":2}')).toBeUndefined();
    expect(decodeHeartbeat("{torn")).toBeUndefined();
    expect(decodeHeartbeat(encodeHeartbeat({ ...h, intervalMs: 0 }))).toBeUndefined();
    expect(heartbeatPath("/state", "../../etc/passwd")).toBeUndefined();
    const state = tempDir();
    expect(readHeartbeat(state, RUN)).toBeUndefined();
  });

  it("are written at the start, refreshed while the run lives, removed at its end", async () => {
    const state = tempDir();
    const beats = new RunHeartbeats(state, 60_000, { here: () => "host-a" });
    beats.start({ runId: RUN, schedule: "nightly", pid: 42, startTime: "1234" });
    const path = heartbeatPath(state, RUN)!;
    expect(readHeartbeat(state, RUN)?.heartbeat).toEqual({
      runId: RUN,
      schedule: "nightly",
      host: "host-a",
      pid: 42,
      startTime: "1234",
      intervalMs: 60_000,
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    utimesSync(path, new Date(T), new Date(T));
    await beats.refresh();
    expect(statSync(path).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
    rmSync(path); // someone else's clean-up: the next beat writes it again
    await beats.refresh();
    expect(readHeartbeat(state, RUN)?.heartbeat.pid).toBe(42);
    beats.end(RUN);
    expect(existsSync(path)).toBe(false);
    await beats.refresh();
    expect(existsSync(path)).toBe(false);
  });
});

describe("runLiveness", () => {
  it("asks /proc about a run of this host, and the heartbeat about another host's", () => {
    const state = tempDir();
    const beats = new RunHeartbeats(state, 1000, { here: () => "host-a" });
    beats.start({ runId: RUN, schedule: "nightly", pid: 42 });
    beats.close();
    const asked: number[] = [];
    const isRunProcess = (pid: number) => {
      asked.push(pid);
      return false;
    };
    const now = () => Date.now();
    expect(
      runLiveness(state, { runId: RUN, pid: 42 }, { here: () => "host-a", now, isRunProcess }),
    ).toEqual({ where: "here", alive: false });
    expect(asked).toEqual([42]);
    const there = runLiveness(
      state,
      { runId: RUN, pid: 42 },
      { here: () => "host-b", now, isRunProcess },
    );
    expect(there).toMatchObject({ where: "elsewhere", alive: true, host: "host-a" });
    expect(asked).toEqual([42]);
    // A heartbeat of another process than the ledger's says nothing of this run.
    expect(
      runLiveness(state, { runId: RUN, pid: 43 }, { here: () => "host-b", now, isRunProcess }),
    ).toEqual({ where: "here", alive: false });
    const later = () => Date.now() + 3100;
    expect(
      runLiveness(
        state,
        { runId: RUN, pid: 42 },
        { here: () => "host-b", now: later, isRunProcess },
      ),
    ).toMatchObject({ where: "elsewhere", alive: false });
  });

  /** A run the ledger shows started on "host-a", with a fresh heartbeat from there. */
  function startedElsewhere(): string {
    const state = tempDir();
    const ledger = RunLedger.open(state, { logger: silentLogger });
    const slot = new Date(T);
    const fields = { schedule: "nightly", slot, cwd: state, trigger: "cron" as const };
    ledger.schedule({ runId: RUN, ...fields, kind: "command", argv: ["true"] });
    // A pid no process here has: on one host this run would be over.
    ledger.started(RUN, {
      pid: 2 ** 22 + 1,
      outputPath: join(state, "out.log"),
      journalPath: join(state, "j"),
      journalOffset: 0,
    });
    const beats = new RunHeartbeats(state, 1000, { here: () => "host-a" });
    beats.start({ runId: RUN, schedule: "nightly", pid: 2 ** 22 + 1 });
    beats.close();
    return state;
  }

  it("leaves a run alive on another host to its launcher after a daemon restart", () => {
    const state = startedElsewhere();
    const after = RunLedger.open(state, { logger: silentLogger });
    expect(recoverPending(after)).toEqual([
      expect.objectContaining({ kind: "elsewhere", host: "host-a" }),
    ]);
    expect(after.replay(RUN)?.summary.status).toBe("running");
    // Three beats missed: that host is gone, and so is the run.
    const path = heartbeatPath(state, RUN)!;
    utimesSync(path, new Date(Date.now() - 4000), new Date(Date.now() - 4000));
    expect(recoverPending(after)).toEqual([expect.objectContaining({ kind: "interrupted" })]);
    expect(readFileSync(path, "utf8")).toContain("host-a");
  });

  it("stop names the host a run runs on rather than signalling a pid of ours", async () => {
    const state = startedElsewhere();
    await expect(stopRun(state, RUN, "operator")).rejects.toThrow(
      `run ${RUN} was launched on host host-a: its launcher there still beats, and its processes cannot be signalled from here; stop it on that host`,
    );
  });
});
