// Shared by the monitor benchmarks: the bundled src/ pieces (journal and tasks byte style,
// writer, follower), a webhook receiver and a monitor process. Records: ./records.mjs.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { AUTOLOOP_CRON, percentile, ROOT, tempDir } from "../lib.mjs";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the bundled src/ pieces (journal/tasks byte style, writer, follower) ----

export async function bundleEntry() {
  const outfile = join(tempDir("autoloop-bench-bundle-"), "monitor-entry.mjs");
  await build({
    entryPoints: [join(ROOT, "bench/monitor/entry.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    external: ["pino", "pino-pretty", "thread-stream", "nodemailer", "prom-client"],
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: "warning",
  });
  return outfile;
}

export const importBundle = (file) => import(pathToFileURL(file).href);

// ---- the webhook receiver and the monitor process ----

/** An HTTP receiver on loopback; `waitFor(runId)` resolves with the request's arrival time. */
export async function webhookReceiver() {
  const waiters = new Map();
  const server = createServer((req, res) => {
    const at = performance.now();
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      let runId;
      try {
        const parsed = JSON.parse(body);
        if (parsed.type === "alert.firing") runId = parsed.data?.runId;
      } catch {}
      const w = runId === undefined ? undefined : waiters.get(runId);
      if (w) {
        waiters.delete(runId);
        w(at);
      }
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: server.address().port,
    /** Arrival (performance.now) of the firing alert about `runId`; Infinity on timeout. */
    waitFor(runId, ms) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(runId);
          resolve(Number.POSITIVE_INFINITY);
        }, ms);
        waiters.set(runId, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
      });
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

export function writeConfig(root, port) {
  mkdirSync(join(root, "schedules"), { recursive: true });
  const glob = join(root, "projects", "*", ".autoloop", "journal.jsonl");
  const config = join(root, "autoloop-cron.toml");
  writeFileSync(
    config,
    `state_dir = "state"\nlog_level = "info"\n[http]\nlisten = ""\n[monitor]\njournals = [${JSON.stringify(glob)}]\ngate_rejections = 1\n[[channel]]\nname = "hook"\ntype = "webhook"\nurl = "http://127.0.0.1:${port}/hook"\nformat = "standard"\n`,
  );
  return config;
}

export function procTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return Number(stat[11]) + Number(stat[12]); // utime + stime, all threads, in 1/100 s
}

/**
 * `autoloop-cron monitor` as a child. Its JSON log tells when it started and, per alert,
 * when it decided it (`time` of "alert firing", Date.now in the monitor: same clock as ours).
 */
export async function startMonitor(config) {
  const prof = process.env.BENCH_MONITOR_CPU_PROF;
  const args = prof ? ["--cpu-prof", "--cpu-prof-dir", prof] : [];
  const child = spawn(process.execPath, [...args, AUTOLOOP_CRON, "monitor", "--config", config], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, AUTOLOOP_CRON_LOG_LEVEL: "info" },
  });
  const decided = new Map();
  const problems = [];
  let started;
  const startedP = new Promise((r) => (started = r));
  let buf = "";
  child.stdout.on("data", (c) => {
    buf += c;
    let nl = buf.indexOf("\n");
    while (nl !== -1) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      nl = buf.indexOf("\n");
      let r;
      try {
        r = JSON.parse(line);
      } catch {
        continue;
      }
      if (r.msg === "monitor started") started(r);
      else if (r.alert === "firing" && r.run !== undefined) decided.set(r.run, r.time);
      else if (r.level >= 40) problems.push(r.msg);
    }
  });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  const exited = new Promise((r) => child.on("exit", r));
  const startedOrExit = await Promise.race([startedP, exited.then(() => undefined)]);
  if (startedOrExit === undefined) throw new Error(`monitor exited at start: ${stderr}`);
  return {
    pid: child.pid,
    decided,
    problems,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

export const pair = (xs) =>
  xs.length === 0 ? "n/a" : `${percentile(xs, 50).toFixed(1)} / ${percentile(xs, 99).toFixed(1)}`;
