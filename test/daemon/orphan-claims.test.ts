// A slot whose claimer died between its claim file and its ledger line (a daemon or `fire`
// killed there) runs once, late, or is recorded as skipped by `catch_up`: a restarted daemon
// retakes it, and of two `fire --slot` processes retaking it one runs it. A claim too young to
// tell from a live claimer's stands.
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/scheduler/config/config.js";
import type { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { claimFilePath } from "../../src/scheduler/ledger/claim-files.js";
import { retakePath } from "../../src/scheduler/ledger/claim-retake.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";
import { slotKey } from "../../src/scheduler/ledger/slots.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger, startDaemon } from "../helpers/daemon.js";
import { waitFor } from "../helpers/wait.js";

const daemons: SchedulerDaemon[] = [];
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.shutdown("terminate", 5_000)));
  cleanupTempDirs();
});

const MINUTE = 60_000;

/**
 * Schedules that never fire by themselves; their retaken slots run `/bin/true`, but `weekly`
 * runs no missed slot (`catch_up = "none"`). The retake margin: three 2 s heartbeats.
 */
function project(): { dir: string; config: string } {
  const dir = tempDir("autoloop-orphans-");
  mkdirSync(join(dir, "schedules"));
  mkdirSync(join(dir, "work"));
  const config = join(dir, "autoloop-cron.toml");
  writeFileSync(
    config,
    `state_dir = "state"\nrun_heartbeat_interval = "2s"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "all"\ncatch_up_window = "1h"\n`,
  );
  writeFileSync(
    join(dir, "schedules", "test.toml"),
    ["nightly", "weekly"]
      .map(
        (name) =>
          `[[schedule]]\nname = "${name}"\ncron = "0 0 1 1 *"\nkind = "command"\ncommand = ["/bin/true"]\nproject_dir = "../work"\n${name === "weekly" ? 'catch_up = "none"\n' : ""}`,
      )
      .join("\n"),
  );
  return { dir, config };
}

/** The claim file a claimer left as it died (no ledger line), last written `ageMs` ago. */
function deadClaim(stateDir: string, slot: Date, ageMs: number, schedule = "nightly"): string {
  const path = claimFilePath(stateDir, slotKey(schedule, slot));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${newScheduledRunId(schedule, slot, () => "dead0")}\n`);
  const at = new Date(Date.now() - ageMs);
  utimesSync(path, at, at);
  return path;
}

/** The ledger's runs (and skips) of `slot`. */
const runsOf = (ledger: RunLedger, slot: Date, schedule = "nightly") =>
  ledger.listRuns({ schedule }).filter((r) => r.slot === slot.toISOString());

/** A slot `minutes` ago, on a whole minute. */
const slotAgo = (minutes: number) =>
  new Date(Math.floor((Date.now() - minutes * MINUTE) / MINUTE) * MINUTE);

describe("orphaned slot claims", () => {
  it("a restarted daemon runs an old orphan's slot once, as a catch-up, and leaves a young one alone", async () => {
    const { config } = project();
    const cfg = loadConfig(config);
    const old = slotAgo(5);
    const young = slotAgo(2);
    const oldClaim = deadClaim(cfg.stateDir, old, 10 * MINUTE);
    const youngClaim = deadClaim(cfg.stateDir, young, 0);
    const unrun = deadClaim(cfg.stateDir, old, 10 * MINUTE, "weekly");
    const d = await startDaemon(cfg, silentLogger);
    daemons.push(d);
    const run = await waitFor(
      () => runsOf(d.ledger, old).find((r) => r.status === "completed"),
      "the orphaned slot's run",
      20_000,
    );
    expect(run).toMatchObject({ trigger: "catch_up" });
    expect(runsOf(d.ledger, old)).toHaveLength(1);
    expect(readFileSync(retakePath(oldClaim), "utf8")).toBe(`${run.runId}\n`);
    // Younger than three heartbeat intervals: its claimer may still be writing its line.
    expect(existsSync(retakePath(youngClaim))).toBe(false);
    expect(runsOf(d.ledger, young)).toEqual([]);
    // Not run, and the ledger says why.
    expect(runsOf(d.ledger, old, "weekly")).toEqual([
      expect.objectContaining({
        status: "skipped",
        trigger: "catch_up",
        skipCause: "catch_up",
        detail: 'its claimer died before recording its run; catch_up = "none"',
      }),
    ]);
    expect(existsSync(retakePath(unrun))).toBe(true);
    // A second restart finds the old slot taken and runs it no more.
    await d.shutdown("terminate", 5_000);
    daemons.pop();
    const again = await startDaemon(cfg, silentLogger);
    daemons.push(again);
    expect(runsOf(again.ledger, old)).toHaveLength(1);
    expect(runsOf(again.ledger, old, "weekly")).toHaveLength(1);
    expect(existsSync(retakePath(youngClaim))).toBe(false);
  }, 30_000);

  it("two `fire --slot` processes on an orphaned slot: one runs it, the other starts nothing", async () => {
    const { dir, config } = project();
    const stateDir = loadConfig(config).stateDir;
    const slot = slotAgo(5);
    const claim = deadClaim(stateDir, slot, 10 * MINUTE);
    const fire = () =>
      execa(
        process.execPath,
        [AUTOLOOP_CRON, "fire", "nightly", "--slot", slot.toISOString(), "--config", config],
        { cwd: dir, env: cleanEnv(), extendEnv: false, reject: false, all: true },
      );
    const results = await Promise.all([fire(), fire()]);
    const outputs = results.map((r) => r.all ?? "");
    expect(results.map((r) => r.exitCode)).toEqual([0, 0]);
    const launched = outputs.filter((o) => o.includes("launched nightly-"));
    expect(launched, outputs.join("\n---\n")).toHaveLength(1);
    const runs = runsOf(RunLedger.open(stateDir, { logger: silentLogger }), slot);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: "cron", status: "completed" });
    expect(readFileSync(retakePath(claim), "utf8")).toBe(`${runs[0]!.runId}\n`);
  }, 30_000);
});
