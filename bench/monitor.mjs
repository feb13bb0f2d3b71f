// bench/monitor: (a) a `task.gate` append → the webhook request, (b) 1,000 journals at
// ~1,000 lines/s: monitor CPU and detection latency, (c) a first pass over a 200 MB journal.
//
// (a) and (b) run the monitor as production does, `autoloop-cron monitor --config ...` in its
// own process (its CPU read from /proc/<pid>/stat), with a real webhook receiver here. (b)'s
// load comes from a worker thread of this file, so its writes never delay the receiver's
// clock. (c) runs the follower in a fresh child Node process (bundled from src/ on the fly),
// so its CPU time (process.cpuUsage) and garbage are its own.
// BENCH_MONITOR_CPU_PROF=<dir> runs the monitor children with --cpu-prof into <dir>.
import { spawn } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { build } from "esbuild";
import { AUTOLOOP_CRON, percentile, ROOT, report, tempDir } from "./lib.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the bundled src/ pieces (journal/tasks byte style, writer, follower) ----

async function bundleEntry() {
  const outfile = join(tempDir("autoloop-bench-bundle-"), "monitor-entry.mjs");
  await build({
    entryPoints: [join(ROOT, "bench/monitor-entry.ts")],
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

const importBundle = (file) => import(pathToFileURL(file).href);

// ---- realistic records (the harness's topics and fields, see `autoloop run`) ----

const ASCII_OUTPUTS = [
  "Ran the test suite: 412 passed, 0 failed (31.2 s).\nUpdated src/parser.ts to accept trailing commas; added two cases to test/parser.test.ts.\nNext: the error message for an unterminated string still names the wrong column.",
  "Read the failing CI log. The flake is in test/daemon.test.ts: it sleeps 100 ms instead of waiting for the 'fired' event. Replaced the sleep with waitFor(). 3 runs green locally.",
  "$ npm run lint\n> biome check .\nChecked 214 files in 96ms. No fixes applied.\n$ npm test\n Test Files  58 passed (58)\n      Tests  905 passed (905)\n   Duration  41.73s",
  "Refactored the outbox worker into its own file (outbox-worker.ts, 96 lines). No behaviour change; the existing tests cover re-arming after enqueue and after an attempt.",
];
// Non-ASCII as agents write it: typographic punctuation, accents, CJK, emoji.
const OTHER_OUTPUTS = [
  "✓ 412 tests passed — 0 failed (31.2 s). Café-style naming fixed in the résumé exporter; « guillemets » kept as is.",
  "Übersetzung der Fehlermeldungen ergänzt: „Datei nicht gefunden“. 日本語のメッセージも追加しました。 🚀 Next: review.",
  "Résultat : 3 fichiers modifiés, aucun échec. Прогон тестов завершён успешно — 905 из 905. ✅",
];

function promptText(run, workDir, iteration, objective) {
  const tool = `${workDir}/.autoloop/runs/${run}/autoloops`;
  return `You are inside an autoloop harness: an event-driven loop that prompts you again until the objective is done.

Context pressure:
- Tasks: 2 open, ${iteration} done (${iteration + 2} total)
- Invalid emits this run: 0
- Task gate refusals this run: 0

Objective:
${objective}

Iteration: ${iteration}/40
Recent event: review.ready
Suggested next roles now: builder
Allowed next events now: (any)
Completion event: task.complete
Completion promise fallback: LOOP_COMPLETE
Required events: (none)
Loop-owned working files belong under: ${workDir}/.autoloop/runs/${run}
Event tool: ${tool}

Current scratchpad:
- iteration ${iteration - 1}: exit 0; emitted review.ready; output: ${ASCII_OUTPUTS[iteration % ASCII_OUTPUTS.length].slice(0, 160)}

Use the event tool to publish an allowed handoff event or the completion event, and to track tasks:
${tool} emit <allowed-topic> "brief handoff summary"
${tool} emit task.complete "brief completion summary"
${tool} task add "work item"    ${tool} task complete task-1    ${tool} task list

Backpressure rule: an event outside the allowed set is rejected and you are asked to re-route.
Completion gate: completion is refused while open (non-soft) tasks remain.
Plain text alone does not publish an event. Prefer the event tool over the stdout completion promise.
`;
}

const OBJECTIVE = "Fix the flaky daemon tests and make the parser accept trailing commas";
const OTHER_OBJECTIVE = "Corriger les tests instables du démon — « trailing commas » acceptées";

function loopStart(E, run, workDir, ts) {
  return E.encodeRecord({
    shape: "system",
    run,
    topic: "loop.start",
    ts,
    v: 1,
    fields: {
      run_id: run,
      objective: OBJECTIVE,
      preset: "autocode",
      trigger: "cron",
      created_at: ts,
      project_dir: `${workDir}/presets/autocode`,
      work_dir: workDir,
      backend: "claude",
      backend_args: "[]",
      parent_run_id: "",
      isolation_mode: "run-scoped",
      max_iterations: "40",
      completion_event: "task.complete",
      completion_promise: "LOOP_COMPLETE",
    },
  });
}

/**
 * The `step`-th record (0..4) of iteration `it`: iteration.start, backend.start, an agent
 * event, backend.finish, iteration.finish. `other` puts non-ASCII text in it.
 */
function iterationRecord(run, workDir, it, step, ts, other) {
  const iteration = String(it);
  const out = (other ? OTHER_OUTPUTS : ASCII_OUTPUTS)[(it + step) % (other ? 3 : 4)];
  const sys = (topic, fields) => ({ shape: "system", run, iteration, topic, ts, v: 1, fields });
  switch (step) {
    case 0:
      return sys("iteration.start", {
        recent_event: "review.ready",
        suggested_roles: "builder",
        allowed_events: "",
        backpressure: "",
        prompt: promptText(run, workDir, it, other ? OTHER_OBJECTIVE : OBJECTIVE),
      });
    case 1:
      return sys("backend.start", {
        backend_kind: "command",
        command: "claude",
        args: "[]",
        prompt_mode: "file",
        timeout_ms: "1800000",
      });
    case 2:
      return {
        shape: "agent",
        run,
        iteration,
        topic: "review.ready",
        ts,
        v: 1,
        payload: out.slice(0, 200 + (it % 5) * 20),
        source: "agent",
      };
    case 3:
      return sys("backend.finish", {
        exit_code: "0",
        timed_out: false,
        output: `${out}\n${out}\n${ASCII_OUTPUTS[it % 4]}`,
      });
    default:
      return sys("iteration.finish", {
        exit_code: "0",
        timed_out: false,
        elapsed_s: `${(60 + (it % 90)).toFixed(3)}`,
        output: out,
      });
  }
}

/** A registry line as the harness writes it (compact JSON), with a live pid. */
function registryLine(run, workDir, journal, ts, pid) {
  return `${JSON.stringify({
    run_id: run,
    status: "running",
    preset: "autocode",
    objective: OBJECTIVE,
    trigger: "cron",
    project_dir: `${workDir}/presets/autocode`,
    work_dir: workDir,
    state_dir: `${workDir}/.autoloop/runs/${run}`,
    journal_file: journal,
    parent_run_id: "",
    backend: "claude",
    backend_args: [],
    created_at: ts,
    updated_at: ts,
    iteration: "1",
    max_iterations: "40",
    stop_reason: "",
    latest_event: "loop.start",
    isolation_mode: "run-scoped",
    pid,
  })}\n`;
}

/** A project dir with an (empty) journal, and helpers to start runs in it. */
function project(E, root, name) {
  const workDir = join(root, "projects", name);
  const journal = join(workDir, ".autoloop", "journal.jsonl");
  mkdirSync(join(workDir, ".autoloop", "runs"), { recursive: true });
  writeFileSync(journal, "");
  let registry = "";
  let lines = "";
  return {
    workDir,
    journal,
    /** Queues a running run: its loop.start and registry line (written by `flush`). */
    startRun(run, ts) {
      registry += registryLine(run, workDir, journal, ts, process.pid);
      lines += `${loopStart(E, run, workDir, ts)}\n`;
    },
    /** A run stuck at its gate needs a tasks file with the open task (else "unknown"). */
    openTask(run, ts) {
      const dir = join(workDir, ".autoloop", "runs", run);
      mkdirSync(dir, { recursive: true });
      const task = {
        type: "task",
        id: "task-1",
        text: "make the parser accept trailing commas",
        status: "open",
        source: "manual",
        created: E.taskTimestamp(new Date(ts)),
        priority: "normal",
        soft: false,
      };
      writeFileSync(join(dir, "tasks.jsonl"), `${E.encodeTaskEntry(task)}\n`);
    },
    flush() {
      writeFileSync(join(workDir, ".autoloop", "registry.jsonl"), registry, { flag: "a" });
      writeFileSync(journal, lines, { flag: "a" });
      registry = "";
      lines = "";
    },
  };
}

/** Appends the refusal as `autoloop emit` does: a fresh writer, one write, fsync, close. */
function appendGate(E, journal, run) {
  const writer = new E.JournalWriter(journal);
  try {
    writer.append({
      shape: "system",
      run,
      iteration: "3",
      topic: "task.gate",
      ts: new Date().toISOString(),
      v: 1,
      fields: { blocked_topic: "task.complete", open_tasks: "task-1" },
    });
  } finally {
    writer.close();
  }
}

// ---- the webhook receiver and the monitor process ----

/** An HTTP receiver on loopback; `waitFor(runId)` resolves with the request's arrival time. */
async function webhookReceiver() {
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

function writeConfig(root, port) {
  mkdirSync(join(root, "schedules"), { recursive: true });
  const glob = join(root, "projects", "*", ".autoloop", "journal.jsonl");
  const config = join(root, "autoloop-cron.toml");
  writeFileSync(
    config,
    `state_dir = "state"\nlog_level = "info"\n[http]\nlisten = ""\n[monitor]\njournals = [${JSON.stringify(glob)}]\ngate_rejections = 1\n[[channel]]\nname = "hook"\ntype = "webhook"\nurl = "http://127.0.0.1:${port}/hook"\nformat = "standard"\n`,
  );
  return config;
}

function procTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return Number(stat[11]) + Number(stat[12]); // utime + stime, all threads, in 1/100 s
}

/**
 * `autoloop-cron monitor` as a child. Its JSON log tells when it started and, per alert,
 * when it decided it (`time` of "alert firing", Date.now in the monitor: same clock as ours).
 */
async function startMonitor(config) {
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

// ---- (a) task.gate → webhook, idle monitor ----

async function gateToWebhook(E) {
  const SAMPLES = 80;
  const root = tempDir();
  const projects = Array.from({ length: 8 }, (_, i) => project(E, root, `p${i}`));
  const runs = [];
  const ts = new Date().toISOString();
  for (let i = 0; i < SAMPLES; i++) {
    const p = projects[i % projects.length];
    const run = `run-gate-${String(i).padStart(3, "0")}`;
    p.startRun(run, ts);
    p.openTask(run, ts);
    runs.push({ run, journal: p.journal });
  }
  for (const p of projects) p.flush();
  const hook = await webhookReceiver();
  const monitor = await startMonitor(writeConfig(root, hook.port));
  const total = [];
  const sent = [];
  const decide = [];
  const deliver = [];
  try {
    await sleep(500);
    for (const { run, journal } of runs) {
      // Off the monitor's timers' phase (1 s poll tick, 5 s evaluation).
      await sleep(100 + Math.random() * 150);
      const arrival = hook.waitFor(run, 10_000);
      const wall = Date.now();
      const t0 = performance.now();
      appendGate(E, journal, run);
      const at = await arrival;
      total.push(at - t0);
      if (Number.isFinite(at)) sent.push({ run, wall, ms: at - t0 });
    }
    await sleep(300); // the monitor's log lines trail its requests
    for (const { run, wall, ms } of sent) {
      const d = monitor.decided.get(run);
      if (d === undefined) continue;
      decide.push(d - wall);
      deliver.push(ms - (d - wall));
    }
  } finally {
    await monitor.stop();
    await hook.close();
  }
  const missed = total.filter((v) => !Number.isFinite(v)).length;
  const p50 = percentile(total, 50);
  const p99 = percentile(total, 99);
  report(
    "(a) task.gate → webhook: samples (missed: none within 10 s)",
    `${total.length} (${missed})`,
    "",
  );
  report("  append → alert decided (monitor log), p50 / p99", pair(decide), "ms");
  report("  alert decided → webhook request, p50 / p99", pair(deliver), "ms");
  let ok = report("  append → webhook request p50", p50, "ms", "<= 20 ms", p50 <= 20);
  ok = report("  append → webhook request p99", p99, "ms", "<= 100 ms", p99 <= 100) && ok;
  if (monitor.problems.length > 0) report("  monitor warnings", monitor.problems[0], "");
  return ok;
}

const pair = (xs) =>
  xs.length === 0 ? "n/a" : `${percentile(xs, 50).toFixed(1)} / ${percentile(xs, 99).toFixed(1)}`;

// ---- (b) 1,000 journals at ~1,000 lines/s ----

/** The load: `rate` lines/s in total, each to a random journal, until told to stop. */
async function loadWorker({ bundle, journals, rate }) {
  const E = await importBundle(bundle);
  const state = journals.map((j) => ({ ...j, writer: new E.JournalWriter(j.journal), n: 5 }));
  let stop = false;
  parentPort.on("message", (m) => {
    if (m === "stop") stop = true;
  });
  const t0 = performance.now();
  let sent = 0;
  while (!stop) {
    const due = Math.floor(((performance.now() - t0) / 1000) * rate);
    const ts = new Date().toISOString();
    while (sent < due) {
      const s = state[Math.floor(Math.random() * state.length)];
      const it = Math.floor(s.n / 5);
      s.writer.append(iterationRecord(s.run, s.workDir, it, s.n % 5, ts, false));
      s.n += 1;
      sent += 1;
    }
    await sleep(5);
  }
  for (const s of state) s.writer.close();
  parentPort.postMessage({ sent, seconds: (performance.now() - t0) / 1000 });
}

async function manyJournals(E, bundle) {
  const JOURNALS = 1000;
  const RATE = 1000;
  const PROBES = 40;
  const root = tempDir();
  const ts = new Date().toISOString();
  const projects = [];
  const load = [];
  for (let i = 0; i < JOURNALS; i++) {
    const p = project(E, root, `p${String(i).padStart(4, "0")}`);
    const run = `run-load-${i}`;
    p.startRun(run, ts);
    projects.push(p);
    load.push({ journal: p.journal, workDir: p.workDir, run });
  }
  const probes = [];
  // Probe 0 is a warm-up, not counted: the first alert after a start pays one-time costs
  // (Node's HTTP client and its parser, the first incident file); (b) measures steady state.
  for (let i = 0; i <= PROBES; i++) {
    const p = projects[(i * 97) % JOURNALS];
    const run = `run-probe-${i}`;
    p.startRun(run, ts);
    p.openTask(run, ts);
    probes.push({ run, journal: p.journal });
  }
  for (const p of projects) p.flush();
  const hook = await webhookReceiver();
  const monitor = await startMonitor(writeConfig(root, hook.port));
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { role: "load", bundle, journals: load, rate: RATE },
  });
  const done = new Promise((r) => worker.once("message", r));
  const total = [];
  const sent = [];
  const decide = [];
  let cpu;
  let probeCpu;
  let result;
  try {
    await sleep(5000); // steady state
    const c0 = procTicks(monitor.pid);
    const w0 = performance.now();
    await sleep(20_000);
    // Ticks are 1/100 s: ticks × 10 ms over the window, as a percentage.
    cpu = ((procTicks(monitor.pid) - c0) * 1000) / (performance.now() - w0);
    // Detection: task.gate lines of probe runs among the load, one every ~500 ms.
    const p0 = procTicks(monitor.pid);
    const pw0 = performance.now();
    const pending = [];
    const [warmUp, ...measured] = probes;
    const warmed = hook.waitFor(warmUp.run, 15_000);
    appendGate(E, warmUp.journal, warmUp.run);
    await warmed;
    for (const { run, journal } of measured) {
      await sleep(350 + Math.random() * 300);
      const arrival = hook.waitFor(run, 15_000);
      const wall = Date.now();
      const t0 = performance.now();
      appendGate(E, journal, run);
      pending.push(
        arrival.then((at) => {
          total.push(at - t0);
          if (Number.isFinite(at)) sent.push({ run, wall });
        }),
      );
    }
    await Promise.all(pending);
    probeCpu = ((procTicks(monitor.pid) - p0) * 1000) / (performance.now() - pw0);
    await sleep(300); // the monitor's log lines trail its requests
    for (const { run, wall } of sent) {
      const d = monitor.decided.get(run);
      if (d !== undefined) decide.push(d - wall);
    }
  } finally {
    worker.postMessage("stop");
    result = await done;
    await worker.terminate();
    await monitor.stop();
    await hook.close();
  }
  const rate = result.sent / result.seconds;
  const missed = total.filter((v) => !Number.isFinite(v)).length;
  const p99 = percentile(total, 99);
  report("(b) 1,000 journals: lines appended per second (all journals)", rate, "lines/s");
  let ok = report("  monitor CPU over 20 s of load", cpu, "% of a core", "<= 15%", cpu <= 15);
  report("  monitor CPU while probing (load + 40 alerts)", probeCpu, "% of a core");
  report(
    "  probes: task.gate lines among the load (missed: no webhook within 15 s)",
    `${total.length} (${missed})`,
    "",
  );
  report("  append → alert decided (monitor log), p50 / p99", pair(decide), "ms");
  report("  append → webhook request p50", percentile(total, 50), "ms");
  ok =
    report(
      "  detection p99: append → webhook request",
      p99,
      "ms",
      "<= 50 ms",
      missed === 0 && p99 <= 50,
    ) && ok;
  return ok;
}

// ---- (c) first pass over a 200 MB journal ----

/** Writes ~`bytes` of history: runs of 30 iterations, each ended by loop.complete. */
function writeBigJournal(E, path, bytes, otherShare) {
  const fd = openSync(path, "w");
  const workDir = "/srv/projects/api";
  let written = 0;
  let lines = 0;
  let other = 0;
  let chunk = [];
  let chunkBytes = 0;
  const t = Date.now() - 3 * 86_400_000;
  const push = (line) => {
    chunk.push(line);
    chunkBytes += Buffer.byteLength(line) + 1;
    lines += 1;
    if (chunkBytes >= 4 << 20) flush();
  };
  const flush = () => {
    const buf = Buffer.from(`${chunk.join("\n")}\n`);
    writeSync(fd, buf);
    written += buf.length;
    chunk = [];
    chunkBytes = 0;
  };
  // Which of the four text-bearing steps carry non-ASCII text: ~otherShare of all lines.
  const pOther = (otherShare * 5) / 4;
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  for (let r = 0; written + chunkBytes < bytes; r++) {
    const run = `run-${String(r).padStart(5, "0")}-nightly-fix`;
    const ts = (k) => new Date(t + r * 120_000 + k * 1000).toISOString();
    push(loopStart(E, run, workDir, ts(0)));
    for (let it = 1; it <= 30; it++) {
      for (let step = 0; step < 5; step++) {
        const isOther = step !== 1 && rand() < pOther;
        if (isOther) other += 1;
        push(E.encodeRecord(iterationRecord(run, workDir, it, step, ts(it), isOther)));
      }
    }
    const end = { reason: "completion_event", completed_iterations: "30" };
    push(
      E.encodeRecord({
        shape: "system",
        run,
        topic: "loop.complete",
        ts: ts(31),
        v: 1,
        fields: end,
      }),
    );
  }
  flush();
  closeSync(fd);
  return { bytes: written, lines, otherShare: other / lines };
}

const PASS_CHILD = `
const [bundle, path, mode] = process.argv.slice(2);
const E = await import(bundle);
const tracker = new E.RunTracker();
let records = 0;
let skipped = 0;
const follower = new E.JournalFollower({
  onLines: (p, batch) => {
    records += batch.records.length;
    skipped += batch.skipped;
    if (mode === "tracker") tracker.apply(p, batch);
  },
});
follower.add(path);
const c0 = process.cpuUsage();
const t0 = performance.now();
await follower.poll();
const wallMs = performance.now() - t0;
const c = process.cpuUsage(c0);
await follower.stop();
process.stdout.write(JSON.stringify({ wallMs, cpuMs: (c.user + c.system) / 1000, records, skipped, runs: tracker.list().length }));
`;

function runNode(args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

async function firstPass(dir, script, bundle, path, mode) {
  const r = await runNode([script, pathToFileURL(bundle).href, path, mode], { cwd: dir });
  if (r.code !== 0) throw new Error(`first-pass child exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** `autoloop-cron monitor --once` over the journal: the product's own first pass. */
async function monitorOnce(dir, path) {
  const state = join(dir, `state-${Math.random().toString(36).slice(2)}`);
  const config = join(dir, "once.toml");
  mkdirSync(join(dir, "schedules"), { recursive: true });
  writeFileSync(config, `state_dir = ${JSON.stringify(state)}\nlog_level = "warn"\n`);
  // A preload reports the child's own CPU time on exit.
  const usage = join(dir, "usage.mjs");
  writeFileSync(
    usage,
    `process.on("exit", () => { const u = process.resourceUsage(); process.stderr.write("BENCH_USAGE " + JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 }) + "\\n"); });\n`,
  );
  const t0 = performance.now();
  const r = await runNode([
    "--import",
    pathToFileURL(usage).href,
    AUTOLOOP_CRON,
    "monitor",
    "--once",
    "--config",
    config,
    "--journal",
    path,
  ]);
  const wallMs = performance.now() - t0;
  if (r.code !== 0) throw new Error(`monitor --once exited ${r.code}: ${r.stderr}`);
  const cpuMs = JSON.parse(/BENCH_USAGE (.*)/.exec(r.stderr)[1]).cpuMs;
  rmSync(state, { recursive: true, force: true });
  return { wallMs, cpuMs, out: r.stdout.trim().split("\n")[0] };
}

async function bigJournal(E, bundle) {
  const dir = tempDir();
  const script = join(dir, "first-pass.mjs");
  writeFileSync(script, PASS_CHILD);
  let ok = true;
  for (const [label, share] of [
    ["mostly ASCII", 0],
    ["~12% non-ASCII lines", 0.12],
  ]) {
    const path = join(dir, "journal.jsonl");
    const g0 = performance.now();
    const gen = writeBigJournal(E, path, 200e6, share);
    const genS = (performance.now() - g0) / 1000;
    const mb = gen.bytes / 1e6;
    report(
      `(c) ${label}: journal written`,
      `${mb.toFixed(0)} MB, ${gen.lines} lines, ${(gen.otherShare * 100).toFixed(1)}% non-ASCII, in ${genS.toFixed(1)} s`,
      "",
    );
    const f = await firstPass(dir, script, bundle, path, "follower");
    if (f.records !== gen.lines || f.skipped !== 0)
      throw new Error(`follower read ${f.records} records (${f.skipped} skipped) of ${gen.lines}`);
    const t = await firstPass(dir, script, bundle, path, "tracker");
    const once = await monitorOnce(dir, path);
    report("  follower: CPU time", f.cpuMs, "ms");
    ok =
      report(
        "  follower: first pass, wall time",
        f.wallMs / 1000,
        "s",
        "<= 2 s",
        f.wallMs <= 2000,
      ) && ok;
    report(
      "  follower + run tracker: wall / CPU",
      `${t.wallMs.toFixed(0)} / ${t.cpuMs.toFixed(0)}`,
      "ms",
    );
    report(
      "  `autoloop-cron monitor --once` (process, incl. start): wall / CPU",
      `${once.wallMs.toFixed(0)} / ${once.cpuMs.toFixed(0)}`,
      "ms",
    );
    rmSync(path, { force: true });
  }
  return ok;
}

export async function benchMonitor() {
  console.log("\n== bench/monitor ==");
  const bundle = await bundleEntry();
  const E = await importBundle(bundle);
  let ok = await gateToWebhook(E);
  ok = (await manyJournals(E, bundle)) && ok;
  ok = (await bigJournal(E, bundle)) && ok;
  return ok;
}

if (!isMainThread && workerData?.role === "load") await loadWorker(workerData);
