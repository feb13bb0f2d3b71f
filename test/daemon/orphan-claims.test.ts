// A slot whose claimer died between its claim file and its ledger line (a daemon or `fire`
// killed there) runs once, late: a restarted daemon retakes it, and of two `fire --slot`
// processes retaking it one runs it. A claim too young to tell from a live claimer stands.
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/scheduler/config/config.js";
import type { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { claimFilePath } from "../../src/scheduler/ledger/claim-files.js";
import { retakePath } from "../../src/scheduler/ledger/claim-retake.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { slotKey } from "../../src/scheduler/ledger/slots.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { nextEvent, silentLogger, startDaemon } from "../helpers/daemon.js";

const daemons: SchedulerDaemon[] = [];
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.shutdown("terminate", 5_000)));
  cleanupTempDirs();
});

const MINUTE = 60_000;

/** A schedule that never fires by itself; its retaken slots run `/bin/true`. Margin: 6 s. */
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
    `[[schedule]]\nname = "nightly"\ncron = "0 0 1 1 *"\nkind = "command"\ncommand = ["/bin/true"]\nproject_dir = "../work"\n`,
  );
  return { dir, config };
}

/** The claim file a claimer left as it died (no ledger line), last written `ageMs` ago. */
function deadClaim(stateDir: string, slot: Date, ageMs: number): string {
  const path = claimFilePath(stateDir, slotKey("nightly", slot));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `nightly-${slot.toISOString().replace(/\D/g, "").slice(0, 8)}T0000-dead0\n`);
  const at = new Date(Date.now() - ageMs);
  utimesSync(path, at, at);
  return path;
}

/** The ledger's runs (and skips) of `slot`. */
const runsOf = (ledger: RunLedger, slot: Date) =>
  ledger.listRuns({ schedule: "nightly" }).filter((r) => r.slot === slot.toISOString());

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
    const d = await startDaemon(cfg, silentLogger);
    daemons.push(d);
    const finished = await nextEvent(d, "finished", () => true, 20_000);
    const [run] = runsOf(d.ledger, old);
    expect(run).toMatchObject({ runId: finished.runId, trigger: "catch_up", status: "completed" });
    expect(runsOf(d.ledger, old)).toHaveLength(1);
    expect(readFileSync(retakePath(oldClaim), "utf8")).toBe(`${run!.runId}\n`);
    // Younger than three heartbeat intervals: its claimer may still be writing its line.
    expect(existsSync(retakePath(youngClaim))).toBe(false);
    expect(runsOf(d.ledger, young)).toEqual([]);
    // A second restart finds the old slot taken and runs it no more.
    await d.shutdown("terminate", 5_000);
    daemons.pop();
    const again = await startDaemon(cfg, silentLogger);
    daemons.push(again);
    expect(runsOf(again.ledger, old)).toHaveLength(1);
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
