// Test helpers: temp dirs and the compiled CLIs run as real child processes.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { execa, type ResultPromise } from "execa";
import { privateRunPaths } from "../../src/harness/control/private-run.js";
import { waitFor } from "./wait.js";

export const ROOT = resolve(import.meta.dirname, "../..");
export const AUTOLOOP = join(ROOT, "dist/bin/autoloop.cjs");
export const AUTOLOOP_CRON = join(ROOT, "dist/bin/autoloop-cron.js");

const made: string[] = [];

/** A fresh temp dir, removed by `cleanupTempDirs()` (call it in afterEach/afterAll). */
export function tempDir(prefix = "autoloop-test-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/**
 * A fresh dir outside /tmp (under the checkout's `.scratch/`), for sandboxes that leave /tmp
 * writable and would hide a write they refuse elsewhere. Removed like `tempDir()`'s.
 */
export function scratchDir(prefix = "autoloop-test-"): string {
  const base = join(ROOT, ".scratch", "tests");
  mkdirSync(base, { recursive: true });
  // Not under this checkout's `"type": "module"`: a project's plain `node test.js` that
  // `require`s runs as it would in the project's own checkout.
  // Written aside and renamed: tests in other workers may be reading it.
  const manifest = join(base, "package.json");
  if (!existsSync(manifest)) {
    writeFileSync(`${manifest}.${process.pid}.tmp`, '{ "type": "commonjs" }\n');
    renameSync(`${manifest}.${process.pid}.tmp`, manifest);
  }
  const dir = realpathSync(mkdtempSync(join(base, prefix)));
  made.push(dir);
  return dir;
}

export function cleanupTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The environment for child CLIs: inherited, minus anything that would bind them to another run. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("AUTOLOOP")) delete env[key];
  return { ...env, ...extra };
}

export function autoloop(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): ResultPromise<{ reject: false; cwd: string; env: NodeJS.ProcessEnv; extendEnv: false }> {
  return execa(process.execPath, [AUTOLOOP, ...args], {
    reject: false,
    cwd: options.cwd,
    env: cleanEnv(options.env),
    extendEnv: false,
  });
}

/** The private folder (launch record, question, control requests) of run `runId` in `projectDir`. */
export function privateRunDir(projectDir: string, runId: string): string {
  return privateRunPaths(runId, join(projectDir, ".autoloop", "journal.jsonl")).dir;
}

/**
 * `autoloop-cron start` as a child process with `config` (listening on `[http] listen`), once
 * its HTTP server answers: its address from daemon.json. Kill it (SIGTERM) and await it after.
 */
export async function startDaemonProcess(
  config: string,
): Promise<{ daemon: ResultPromise; url: string }> {
  const daemon = execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
  });
  const info = join(dirname(config), "state", "daemon.json");
  const url = await waitFor(
    () => existsSync(info) && (JSON.parse(readFileSync(info, "utf8")) as { http?: string }).http,
    "the daemon's address in daemon.json",
    30_000,
  );
  return { daemon, url };
}

/**
 * The status of a GET of `url` sent with another site's Host header, as a DNS-rebinding
 * browser would send it (fetch() will not send another Host).
 */
export function statusWithForeignHost(url: string): Promise<number> {
  const { port } = new URL(url);
  return new Promise<number>((resolve, reject) =>
    httpGet(url, { headers: { host: `evil.example:${port}` } }, (r) => {
      r.resume();
      resolve(r.statusCode ?? 0);
    }).on("error", reject),
  );
}
