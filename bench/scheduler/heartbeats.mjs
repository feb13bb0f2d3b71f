// The cost of run heartbeats: the daemon's CPU while 100 runs it launched run (each a
// `sleep`), at the default interval (10 s) and at 100 ms, a hundred times as many beats; the
// difference is what beats cost. Target: at the default interval, beats take under 0.1% of a
// core with 100 runs.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cpuMs, report, tempDir } from "../lib.mjs";
import { probeStart } from "./load-probe.mjs";

const RUNS = 100;
const WINDOW_MS = 10_000;

/** 100 schedules that all fire once, a few seconds after the daemon starts, and hold. */
function writeTree(dir, interval) {
  mkdirSync(join(dir, "schedules"));
  mkdirSync(join(dir, "work"));
  writeFileSync(
    join(dir, "autoloop-cron.toml"),
    `state_dir = "state"\nmax_concurrent_runs = ${RUNS}\nrun_heartbeat_interval = "${interval}"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "none"\n`,
  );
  const at = new Date(Date.now() + 5000);
  const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} * * * *`;
  const entries = Array.from(
    { length: RUNS },
    (_, i) =>
      `[[schedule]]\nname = "hold-${i}"\ncron = "${cron}"\nkind = "command"\ncommand = ["sleep", "600"]\nproject_dir = "../work"\n`,
  );
  writeFileSync(join(dir, "schedules", "hold.toml"), entries.join("\n"));
}

async function until(check, what, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The daemon's CPU (ms per second of wall time) over a window with all runs running. */
async function daemonCpu(interval) {
  const dir = tempDir();
  writeTree(dir, interval);
  const daemon = await probeStart(["start", "--config", join(dir, "autoloop-cron.toml")], {
    until: /autoloop-cron started/,
  });
  try {
    const beats = join(dir, "state", "heartbeats");
    const count = () => (existsSync(beats) ? readdirSync(beats).length : 0);
    await until(() => count() === RUNS, `${RUNS} runs`);
    await new Promise((r) => setTimeout(r, 1000)); // the launches' own work done
    const before = cpuMs(daemon.child.pid);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    const used = cpuMs(daemon.child.pid) - before;
    return (used / (performance.now() - t0)) * 1000;
  } finally {
    await daemon.stop();
  }
}

export async function benchHeartbeats() {
  console.log("\n== bench/scheduler/heartbeats ==");
  const idle = await daemonCpu("10s");
  const busy = await daemonCpu("100ms");
  // Beats per second: 100 runs every 10 s, then every 100 ms.
  const perBeatUs = (Math.max(0, busy - idle) / (RUNS * 10 - RUNS / 10)) * 1000;
  report(
    `daemon CPU with ${RUNS} running runs, heartbeats every 10 s (default)`,
    idle / 10,
    "% of a core",
  );
  report(`the same, heartbeats every 100 ms (${RUNS * 10} beats/s)`, busy / 10, "% of a core");
  report("one heartbeat's cost to the daemon (from the difference)", perBeatUs, "µs of CPU");
  // At the default interval: 10 beats a second for 100 runs.
  const share = (((RUNS / 10) * perBeatUs) / 1e6) * 100;
  const ok = report(
    `heartbeats' share of a core at the default interval (${RUNS / 10} beats/s)`,
    share.toFixed(3),
    "%",
    "< 0.1%",
    share < 0.1,
  );
  return ok;
}
