// A real `autoloop-cron start` in its own process, for attacks that could freeze or exhaust
// it: a schedule that fires every second (the canary: it must keep firing), the schedules
// under attack, its HTTP endpoint on a free port, and its log kept for the test to read.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { AUTOLOOP_CRON, cleanEnv } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The canary: a command schedule that fires every second and exits 0 at once. */
export const CANARY = `[[schedule]]\nname = "canary"\ncron = "* * * * * *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", "0"]\nproject_dir = "../work"\n`;

/** A preset schedule on a project of the test's, firing once a year: its journal is followed. */
export function projectSchedule(name: string, projectDir: string): string {
  return `[[schedule]]\nname = "${name}"\ncron = "0 3 1 1 *"\npreset = "demo"\nobjective = "x"\nproject_dir = ${JSON.stringify(projectDir)}\n`;
}

export interface DaemonProcess {
  child: ResultPromise;
  url: string;
  config: string;
  log(): string;
  /** The daemon's resident set high-water mark (VmHWM), in bytes. */
  peakRss(): number;
  /** Launches of a schedule the ledger has, per `autoloop-cron runs --json`. */
  launches(schedule: string): Promise<number>;
  /** GET a path, with a deadline: a frozen event loop shows as a timeout. */
  get(path: string, timeoutMs?: number): Promise<{ status: number; body: string }>;
  stop(): Promise<void>;
}

/** `settings`: top-level config lines (e.g. `harness = [...]`), before the `[http]` table. */
export async function startDaemonProcess(
  dir: string,
  schedules: string,
  settings = "",
): Promise<DaemonProcess> {
  mkdirSync(join(dir, "schedules"), { recursive: true });
  mkdirSync(join(dir, "work"), { recursive: true });
  const port = await freePort();
  const config = join(dir, "autoloop-cron.toml");
  writeFileSync(
    config,
    `${settings}state_dir = "state"\n[http]\nlisten = "127.0.0.1:${port}"\n[defaults]\ncatch_up = "none"\n`,
  );
  writeFileSync(join(dir, "schedules", "test.toml"), CANARY + schedules);
  const logFile = join(dir, "daemon.log");
  writeFileSync(logFile, "");
  const child = execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    stdout: { file: logFile },
    stderr: { file: logFile },
  });
  const url = `http://127.0.0.1:${port}`;
  const get = async (path: string, timeoutMs = 2_000) => {
    const res = await fetch(url + path, { signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, body: await res.text() };
  };
  const daemon: DaemonProcess = {
    child,
    url,
    config,
    log: () => readFileSync(logFile, "utf8"),
    peakRss: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)![1]) * 1024;
    },
    launches: async (schedule) => {
      const r = await execa(
        process.execPath,
        [
          AUTOLOOP_CRON,
          "runs",
          "--schedule",
          schedule,
          "--limit",
          "1000",
          "--json",
          "--config",
          config,
        ],
        { env: cleanEnv(), extendEnv: false, reject: false },
      );
      if (r.exitCode !== 0) throw new Error(`autoloop-cron runs failed: ${r.stderr}`);
      return (JSON.parse(r.stdout) as unknown[]).length;
    },
    get,
    stop: async () => {
      child.kill("SIGTERM");
      await child;
    },
  };
  await waitFor(
    async () => (await get("/healthz").catch(() => undefined))?.status === 200,
    "the daemon's /healthz",
    20_000,
    100,
  );
  return daemon;
}

/**
 * Watches the daemon for `ms`: /healthz must answer within a second every 250 ms, and the
 * canary must go on firing (at least `ms / 1000 - 2` launches).
 */
export async function assertStaysResponsive(daemon: DaemonProcess, ms: number): Promise<void> {
  const before = await daemon.launches("canary");
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const health = await daemon.get("/healthz", 1_000);
    if (health.status !== 200)
      throw new Error(`/healthz answered ${health.status}: ${health.body}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const after = await daemon.launches("canary");
  const fired = after - before;
  if (fired < Math.floor(ms / 1000) - 2)
    throw new Error(`the canary fired ${fired} times in ${ms} ms`);
}
