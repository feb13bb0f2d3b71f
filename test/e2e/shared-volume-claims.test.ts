// Two "hosts" sharing one state dir, as pods on a ReadWriteMany volume: each process runs in
// PID and mount namespaces of its own (`unshare`), so neither can see the other in /proc.
// A scheduled slot runs once whoever claims it: two `fire`s, or a daemon and a `fire`.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { isTerminal, type RunSummary } from "../../src/scheduler/ledger/events.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { commandSchedule, writeCronConfig } from "../helpers/daemon.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

/** Why these tests cannot run here, or undefined when they can (root and util-linux unshare). */
function whyNoNamespaces(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root for PID and mount namespaces (CI runs as root)";
  const probe = spawnSync("unshare", ["--pid", "--fork", "--mount-proc", "true"]);
  if (probe.error !== undefined) return "needs unshare (util-linux)";
  if (probe.status !== 0) return `unshare cannot make namespaces here: ${probe.stderr}`;
  return undefined;
}
const skip = whyNoNamespaces();

/** autoloop-cron on a host of its own: its own PID namespace and /proc. */
function onOwnHost(dir: string, ...args: string[]) {
  const argv = [
    process.execPath,
    AUTOLOOP_CRON,
    ...args,
    "--config",
    join(dir, "autoloop-cron.toml"),
  ];
  return execa("unshare", ["--pid", "--fork", "--mount-proc", "--kill-child=SIGTERM", ...argv], {
    env: cleanEnv(),
    reject: false,
  });
}

function runsOf(dir: string): RunSummary[] {
  return RunLedger.open(join(dir, "state")).listRuns({ schedule: "nightly" });
}

/**
 * A slot a few seconds ahead, with jitter: each claimer opens its ledger at once and claims
 * only at the slot's jittered instant, so the claims meet and no process's memory can have
 * seen the other's (the race a cluster makes when it creates two Jobs for one time).
 */
function slotAhead(ms: number, everySeconds: number): Date {
  const step = everySeconds * 1000;
  return new Date(Math.ceil((Date.now() + ms) / step) * step);
}

describe.skipIf(skip !== undefined)(
  `a slot on a shared state dir runs once ${skip ? `(skipped: ${skip})` : ""}`,
  () => {
    it("two fires for one scheduled time, on two hosts, start one run; the other says why", async () => {
      const dir = tempDir();
      writeCronConfig(dir, commandSchedule("nightly", "console.log('ran')", 'jitter = "1s"'));
      const slot = slotAhead(2_500, 1).toISOString();
      const fires = await Promise.all([
        onOwnHost(dir, "fire", "nightly", "--foreground", "--slot", slot),
        onOwnHost(dir, "fire", "nightly", "--foreground", "--slot", slot),
      ]);
      expect(fires.map((f) => f.exitCode)).toEqual([0, 0]);
      const said = fires.map((f) => f.stderr).join("\n");
      expect(said.match(/launched nightly-/g)).toHaveLength(1);
      expect(said).toMatch(/already claimed by nightly-\d{8}T\d{4}-[0-9a-z]{5}/);
      const runs = runsOf(dir);
      expect(runs.map((r) => `${r.slot} ${r.status}`)).toEqual([`${slot} completed`]);
    }, 30_000);

    it("a daemon and a fire on two hosts, claiming one slot at one instant, start one run", async () => {
      const dir = tempDir();
      // Every 2 s: the daemon fires each slot (a jitter as long as the period would skip some).
      const every2s = commandSchedule("nightly", "console.log('ran')", 'jitter = "1s"');
      writeCronConfig(dir, every2s.replace('cron = "* * * * * *"', 'cron = "*/2 * * * * *"'));
      const daemon = onOwnHost(dir, "start");
      await waitFor(() => readIfThere(join(dir, "state", "daemon.json")), "the daemon's start");
      const slot = slotAhead(2_000, 2).toISOString();
      const fire = await onOwnHost(dir, "fire", "nightly", "--foreground", "--slot", slot);
      // One record of the slot: the daemon's run or skip, or the fire's run, never two.
      const ofSlot = await waitFor(() => {
        const mine = runsOf(dir).filter((r) => r.slot === slot);
        return mine.length > 0 && mine.every((r) => isTerminal(r.status)) && mine;
      }, "the slot's record to end");
      await stopHost(daemon);
      expect(fire.exitCode).toBe(0);
      expect(ofSlot).toHaveLength(1);
    }, 30_000);
  },
);

/** SIGTERM to the process inside a host: unshare --fork ignores it while it waits. */
async function stopHost(host: ReturnType<typeof onOwnHost>): Promise<void> {
  const children = `/proc/${host.pid}/task/${host.pid}/children`;
  for (const pid of readFileSync(children, "utf8").trim().split(/\s+/))
    if (pid !== "") process.kill(Number(pid), "SIGTERM");
  await host;
}

function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
