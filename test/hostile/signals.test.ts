// Signals an agent could aim: a registry line naming the daemon, its spawn helper or an
// unrelated process as the run's harness makes no operator tool (`autoloop-cron guide` and
// `interrupt`, the page's guide button, `autoloop control`) signal it; only the harness the
// daemon launched for the run is woken. And SIGUSR1 sent straight to the daemon or its helper
// opens no inspector: both log that they ignored it and go on.
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRecord, type JournalRecord } from "../../src/journal/codec.js";
import {
  AUTOLOOP,
  AUTOLOOP_CRON,
  cleanEnv,
  cleanupTempDirs,
  privateRunDir,
  tempDir,
} from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";
import { type DaemonProcess, projectSchedule, startDaemonProcess } from "./daemon-process.js";

afterEach(cleanupTempDirs);

const STUCK = `[[schedule]]\nname = "stuck"\ncron = "0 0 1 1 *"\npreset = "demo"\nobjective = "Ship it (stuck)"\nproject_dir = "../work"\nmax_iterations = 400\nenv = { AUTOLOOP_DEMO_DELAY_MS = "2000" }\n`;

/** Alive and not a zombie (a child of ours killed by a signal stays a zombie until reaped). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]!);
  } catch {
    return false;
  }
}

/** The daemon's spawn helper: its child whose title says so. */
function helperOf(daemonPid: number): number | undefined {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (ppid === daemonPid && cmdline.includes("spawn-helper")) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

const NO_INSPECTOR = /Debugger listening|Starting inspector/;

async function pageToken(daemon: DaemonProcess): Promise<string> {
  const text = (await daemon.get("/")).body;
  return /name="token" value="([^"]+)"/.exec(text)![1]!;
}

/** A run started by hand at `at`, as files only: its journal says it runs, its registry names `pid`. */
function handRun(project: string, runId: string, pid: number, at = new Date()): void {
  const dir = join(project, ".autoloop");
  mkdirSync(join(dir, "runs", runId), { recursive: true });
  const start = {
    shape: "system",
    run: runId,
    topic: "loop.start",
    ts: at.toISOString(),
    v: 1,
    fields: { objective: "x", preset: "demo", work_dir: project },
  } as JournalRecord;
  appendFileSync(join(dir, "journal.jsonl"), `${encodeRecord(start)}\n`);
  const line = {
    run_id: runId,
    status: "running",
    state_dir: `runs/${runId}`,
    pid,
    host: hostname(),
  };
  appendFileSync(join(dir, "registry.jsonl"), `${JSON.stringify(line)}\n`);
}

describe("an operator's guide or interrupt, when the registry names another process", () => {
  it("signals neither the daemon, nor its spawn helper, nor an unrelated process", async () => {
    const dir = tempDir("autoloop-signals-");
    const project = join(dir, "project");
    mkdirSync(project);
    const daemon = await startDaemonProcess(dir, projectSchedule("watched", project));
    const cron = (...args: string[]) =>
      execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", daemon.config], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      });
    const control = (...args: string[]) =>
      execa(process.execPath, [AUTOLOOP, "control", ...args, "--work-dir", project], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      });
    const notes = join(dir, "autoloop-notes.txt");
    writeFileSync(notes, "");
    const tail = execa("tail", ["-f", notes], { reject: false });
    try {
      const daemonPid = daemon.child.pid!;
      const helperPid = await waitFor(() => helperOf(daemonPid), "the spawn helper");
      await waitFor(async () => (await daemon.launches("canary")) > 0, "a canary launch", 20_000);
      const token = await pageToken(daemon);
      const tracker = join(dir, "state", "monitor", "tracker.json");
      const targets = [
        ["daemon", daemonPid],
        ["spawn-helper", helperPid],
        ["tail", tail.pid!],
      ] as const;
      for (const [who, pid] of targets) handRun(project, `hand-${who}`, pid);
      await waitFor(
        () =>
          existsSync(tracker) &&
          targets.every(([who]) => readFileSync(tracker, "utf8").includes(`hand-${who}`)),
        "the monitor to track the runs",
        20_000,
      );
      for (const [who, pid] of targets) {
        const runId = `hand-${who}`;
        const guided = await cron("guide", runId, `steer (${who})`);
        expect(guided.exitCode, guided.stderr).toBe(0);
        expect(guided.stdout, who).toContain(
          `its next iteration starts with it (not interrupted: pid ${pid} in the run's registry is not an autoloop harness`,
        );
        const interrupted = await cron("interrupt", runId);
        expect(interrupted.exitCode, interrupted.stderr).toBe(0);
        expect(interrupted.stdout, who).toContain("interrupt queued");
        const page = await fetch(`${daemon.url}/runs/${runId}/guide`, {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            accept: "application/json",
          },
          body: new URLSearchParams({ token, note: `from the page (${who})` }),
        });
        const pressed = (await page.json()) as { ok: boolean; message: string };
        expect(pressed.ok, pressed.message).toBe(true);
        expect(pressed.message, who).toContain("not interrupted");
        const byHand = await control("guide", runId, `by hand (${who})`);
        expect(byHand.exitCode, byHand.stderr).toBe(0);
        expect(byHand.stdout, who).toContain("not interrupted");
        const handInterrupt = await control("interrupt", runId);
        expect(handInterrupt.stdout, who).toContain("(not signalled");
        // Whatever was sent has landed by the time the daemon answers again.
        expect((await daemon.get("/healthz")).status).toBe(200);
        expect(alive(daemonPid), "the daemon").toBe(true);
        expect(alive(helperPid), "the spawn helper").toBe(true);
        expect(alive(tail.pid!), "tail -f").toBe(true);
        expect(daemon.log()).not.toMatch(NO_INSPECTOR);
      }
    } finally {
      tail.kill();
      await daemon.stop();
    }
    expect(daemon.log()).not.toMatch(NO_INSPECTOR);
  }, 120_000);

  it("wakes the harness the daemon launched for the run, whatever its registry says", async () => {
    const dir = tempDir("autoloop-signals-");
    const daemon = await startDaemonProcess(dir, STUCK);
    const cron = (...args: string[]) =>
      execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", daemon.config], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      });
    let runId = "";
    try {
      const fired = await cron("fire", "stuck");
      runId = /stuck-\S+/.exec(`${fired.stdout}\n${fired.stderr}`)![0];
      const registry = join(dir, "work", ".autoloop", "registry.jsonl");
      const real = await waitFor(
        () => {
          if (!existsSync(registry)) return undefined;
          const line = readFileSync(registry, "utf8")
            .trim()
            .split("\n")
            .findLast((l) => l.includes(runId));
          const entry = line ? (JSON.parse(line) as { status: string; pid?: number }) : undefined;
          return entry?.status === "running" && entry.pid !== undefined ? entry : undefined;
        },
        "the run's registry line",
        30_000,
      );
      const daemonPid = daemon.child.pid!;
      appendFileSync(registry, `${JSON.stringify({ ...real, pid: daemonPid })}\n`);
      const guided = await cron("guide", runId, "steer");
      expect(guided.exitCode, guided.stderr).toBe(0);
      expect(guided.stdout).toContain("its agent's current turn is stopped");
      // The harness acks in its private folder (the run's own `control/` is the agent's).
      const status = join(privateRunDir(join(dir, "work"), runId), "control", "status.jsonl");
      await waitFor(
        () => existsSync(status) && readFileSync(status, "utf8").includes('"guide"'),
        "the harness's ack of the guidance",
      );
      expect((await daemon.get("/healthz")).status).toBe(200);
      expect(daemon.log()).not.toMatch(NO_INSPECTOR);
    } finally {
      if (runId !== "") await cron("stop", runId, "test over");
      await daemon.stop();
    }
    expect(daemon.log()).not.toMatch(NO_INSPECTOR);
  }, 120_000);
});

describe("a guide for a run of a daemon whose config runs its own harness command", () => {
  it("wakes the harness under a wrapper script that gives Node an option", async () => {
    const dir = tempDir("autoloop-signals-");
    // A wrapper shell (no exec: the harness is its child) running Node with an option of its own.
    const script = `${JSON.stringify(process.execPath)} --max-old-space-size=512 ${JSON.stringify(AUTOLOOP)} "$@"; exit $?`;
    const harness = `harness = ${JSON.stringify(["/bin/sh", "-c", script, "harness-wrapper"])}\n`;
    const daemon = await startDaemonProcess(dir, STUCK, harness);
    const cron = (...args: string[]) =>
      execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", daemon.config], {
        env: cleanEnv(),
        extendEnv: false,
        reject: false,
      });
    let runId = "";
    try {
      const fired = await cron("fire", "stuck");
      runId = /stuck-\S+/.exec(`${fired.stdout}\n${fired.stderr}`)![0];
      const journal = join(dir, "work", ".autoloop", "journal.jsonl");
      await waitFor(
        () => existsSync(journal) && readFileSync(journal, "utf8").includes("iteration.start"),
        "the agent's first turn",
        30_000,
      );
      const guided = await cron("guide", runId, "steer");
      expect(guided.exitCode, guided.stderr).toBe(0);
      expect(guided.stdout).toContain("its agent's current turn is stopped");
      const status = join(privateRunDir(join(dir, "work"), runId), "control", "status.jsonl");
      await waitFor(
        () => existsSync(status) && readFileSync(status, "utf8").includes('"guide"'),
        "the harness's ack of the guidance",
      );
      const runs = await cron("runs", "--schedule", "stuck", "--json");
      const [run] = JSON.parse(runs.stdout) as { status: string }[];
      expect(run?.status).toBe("running"); // the wake killed nothing
    } finally {
      if (runId !== "") await cron("stop", runId, "test over");
      await daemon.stop();
    }
  }, 120_000);
});

describe("SIGUSR1 sent straight to the daemon and its spawn helper", () => {
  it("opens no inspector: each logs that it ignored it and goes on", async () => {
    const dir = tempDir("autoloop-signals-");
    const daemon = await startDaemonProcess(dir, "");
    try {
      const daemonPid = daemon.child.pid!;
      const helperPid = await waitFor(() => helperOf(daemonPid), "the spawn helper");
      // Past its start-up: the helper has spawned the canary.
      await waitFor(async () => (await daemon.launches("canary")) > 0, "a canary launch", 20_000);
      for (const pid of [daemonPid, helperPid]) {
        process.kill(pid, "SIGUSR1");
        await waitFor(
          () =>
            NO_INSPECTOR.test(daemon.log()) ||
            daemon.log().includes(`ignored SIGUSR1 (pid ${pid})`),
          `pid ${pid}'s answer to SIGUSR1`,
        );
        expect(daemon.log()).not.toMatch(NO_INSPECTOR);
        expect(daemon.log()).toContain(`ignored SIGUSR1 (pid ${pid})`);
      }
      expect((await daemon.get("/healthz")).status).toBe(200);
      expect(alive(daemonPid) && alive(helperPid)).toBe(true);
    } finally {
      await daemon.stop();
    }
  }, 60_000);
});

describe("a run started by hand whose registry names another run's harness", () => {
  it("is not woken through a harness that started after the run did (a reused pid)", async () => {
    const other = tempDir("autoloop-other-");
    const harness = execa(
      process.execPath,
      [AUTOLOOP, "run", "demo", "Ship it (stuck)", "--work-dir", other, "--quiet"],
      {
        cwd: other,
        env: cleanEnv({ AUTOLOOP_DEMO_DELAY_MS: "5000" }),
        extendEnv: false,
        reject: false,
      },
    );
    const project = tempDir("autoloop-hand-");
    try {
      await waitFor(
        () => existsSync(join(other, ".autoloop", "registry.jsonl")),
        "the other run's registry",
      );
      const pid = harness.pid!;
      const control = (...args: string[]) =>
        execa(process.execPath, [AUTOLOOP, "control", ...args, "--work-dir", project], {
          env: cleanEnv(),
          extendEnv: false,
          reject: false,
        });
      // The run began an hour before that process did: the pid is not its harness.
      handRun(project, "old-run", pid, new Date(Date.now() - 3_600_000));
      const old = await control("guide", "old-run", "steer");
      expect(old.exitCode, old.stderr).toBe(0);
      expect(old.stdout).toContain(`not interrupted: pid ${pid} started after the run did`);
      // A run that began after it: the harness may be its own, and it is woken.
      handRun(project, "new-run", pid);
      const woken = await control("guide", "new-run", "steer");
      expect(woken.stdout).toContain("the agent's current turn is stopped");
      expect(alive(pid)).toBe(true);
    } finally {
      harness.kill("SIGTERM");
      await harness;
    }
  }, 60_000);
});
