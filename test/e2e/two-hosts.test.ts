// Runs on two "hosts" sharing one state dir: each side in its own PID and mount namespace
// (`unshare`), so /proc on one says nothing about the other's processes, as on two machines.
// Overlap and crash detection then rest on the launchers' heartbeats alone.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

const UNSHARE = ["--pid", "--fork", "--mount-proc", "--kill-child=SIGKILL"];
const canUnshare =
  process.getuid?.() === 0 &&
  spawnSync("unshare", [...UNSHARE, "true"], { stdio: "ignore" }).status === 0;

/** The run: one journal record (ten minutes old, past any crash grace), then it waits. */
const HOLD = `const fs = require("node:fs");
fs.mkdirSync(".autoloop", { recursive: true });
const ts = new Date(Date.now() - 600000).toISOString();
const record = { run: process.env.AUTOLOOP_CRON_RUN_ID, topic: "loop.start", ts, v: 1, fields: { objective: "hold" } };
fs.appendFileSync(".autoloop/journal.jsonl", JSON.stringify(record) + "\\n");
setInterval(() => {}, 60000);`;

function project(cron: string, overlap: "skip" | "replace") {
  const dir = tempDir("autoloop-two-hosts-");
  mkdirSync(join(dir, "schedules"));
  mkdirSync(join(dir, "work"));
  writeFileSync(
    join(dir, "autoloop-cron.toml"),
    `state_dir = "state"\nrun_heartbeat_interval = "300ms"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "none"\n`,
  );
  writeFileSync(
    join(dir, "schedules", "hold.toml"),
    `[[schedule]]\nname = "hold"\ncron = "${cron}"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(HOLD)}]\nproject_dir = "../work"\noverlap = "${overlap}"\n`,
  );
  const beats = join(dir, "state", "heartbeats");
  return {
    dir,
    journal: join(dir, "work", ".autoloop", "journal.jsonl"),
    beats: () => (existsSync(beats) ? readdirSync(beats).map((f) => join(beats, f)) : []),
  };
}

/** `autoloop-cron …` on a host of its own; killing it with SIGKILL kills everything on that host. */
function onHost(dir: string, ...args: string[]) {
  return execa("unshare", [...UNSHARE, process.execPath, AUTOLOOP_CRON, ...args], {
    cwd: dir,
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    // A one-shot command that should end but waits for a run fails the test, not its timeout.
    ...(args[0] !== "start" && { timeout: 20_000 }),
  });
}

/** Waits until the only heartbeat has gone unrefreshed for more than three intervals. */
async function staleBeat(path: string): Promise<void> {
  await waitFor(() => Date.now() - statSync(path).mtimeMs > 1000, "a stale heartbeat", 10_000);
}

afterEach(cleanupTempDirs);

// Skipped (not failed) without root or util-linux unshare: CI runs as root.
describe.skipIf(!canUnshare)(
  "runs on two hosts sharing one state dir (root, unshare --pid --mount-proc)",
  () => {
    it('overlap = "skip" sees a run of a daemon on another host, until its heartbeat stops', async () => {
      const p = project("* * * * * *", "skip");
      const first = onHost(p.dir, "start");
      const second = { host: undefined as ReturnType<typeof onHost> | undefined, log: "" };
      try {
        const [beat] = await waitFor(() => p.beats().length === 1 && p.beats(), "the daemon's run");
        const runId = beat!.split("/").pop()!;
        const skipped = await onHost(p.dir, "fire", "hold");
        expect(skipped.stderr).toContain("hold not launched");
        expect(skipped.stderr).toContain("overlap");

        // A second daemon over the same state dir: the run is neither adopted nor closed by it,
        // and its slots are skipped while the run lives.
        second.host = onHost(p.dir, "start");
        second.host.stdout?.on("data", (chunk: Buffer) => {
          second.log += chunk.toString("utf8");
        });
        await waitFor(
          () =>
            second.log.includes('"cause":"overlap"') && second.log.includes("left to its launcher"),
          "the second daemon leaving the run alone and skipping its slots",
        );
        expect(second.log).toContain(runId);
        expect(p.beats()).toEqual([beat]);

        first.kill("SIGKILL"); // the whole host: the daemon and its run
        await first;
        await staleBeat(beat!);
        await waitFor(() => p.beats().length === 2, "a run launched once the other host is dead");
      } finally {
        for (const host of [first, second.host]) {
          host?.kill("SIGKILL");
          await host;
        }
      }
    }, 60_000);

    it("a run killed with SIGKILL on one host is reported run_crashed by a monitor on another; replace cannot reach it", async () => {
      const p = project("0 0 1 1 *", "replace");
      // A monitor watching for an hour already: a crash now is news, not history from before.
      mkdirSync(join(p.dir, "state", "monitor"), { recursive: true });
      const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
      writeFileSync(join(p.dir, "state", "monitor", "watching-since"), `${hourAgo}\n`);
      expect((await onHost(p.dir, "monitor", "--once")).exitCode).toBe(0); // its first look
      const fire = onHost(p.dir, "fire", "hold");
      try {
        const [beat] = await waitFor(
          () => p.beats().length === 1 && existsSync(p.journal) && p.beats(),
          "the run on the first host",
        );
        // Alive by its heartbeat: its pid, meaningless here, must not make it a crash.
        const alive = await onHost(p.dir, "monitor", "--once", "--journal", p.journal);
        expect(alive.exitCode).toBe(0);
        expect(alive.stdout).not.toContain("run_crashed");
        // Nor can this host replace it: its process group is not ours to signal.
        const replaced = await onHost(p.dir, "fire", "hold");
        expect(replaced.stderr).toContain("hold not launched");
        expect(replaced.stderr).toContain("can neither wait for nor stop");
        expect(p.beats()).toEqual([beat]);

        fire.kill("SIGKILL");
        await fire;
        const started = Date.now();
        await staleBeat(beat!);
        const crashed = await onHost(p.dir, "monitor", "--once", "--journal", p.journal);
        expect(crashed.stdout).toMatch(/firing\s+run_crashed/);
        // Within the crash grace of its last record (long past) plus three missed beats.
        expect(Date.now() - started).toBeLessThan(15_000);
        expect(readFileSync(beat!, "utf8")).toContain('"intervalMs":300');
      } finally {
        fire.kill("SIGKILL");
        await fire;
      }
    }, 60_000);
  },
);
