// (b) 1,000 and 10,000 journals at ~1,000 lines/s in all: the monitor's CPU and detection
// latency.
// The load comes from a worker thread running this same file, so its writes never delay
// the receiver's clock.
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { percentile, report, tempDir } from "../lib.mjs";
import { appendGate, iterationRecord, project } from "./records.mjs";
import {
  importBundle,
  pair,
  procTicks,
  sleep,
  startMonitor,
  webhookReceiver,
  writeConfig,
} from "./shared.mjs";

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

/**
 * `journals` journals under load; targets per size: `cpuTarget` % of a core and a detection
 * p99 of `p99Target` ms.
 */
export async function manyJournals(E, bundle, { journals: JOURNALS, cpuTarget, p99Target }) {
  const RATE = 1000;
  const label = `(b) ${JOURNALS.toLocaleString("en-US")} journals`;
  const PROBES = 40;
  const root = tempDir();
  const ts = new Date().toISOString();
  const projects = [];
  const load = [];
  for (let i = 0; i < JOURNALS; i++) {
    const p = project(E, root, `p${String(i).padStart(5, "0")}`);
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
  report(`${label}: lines appended per second (all journals)`, rate, "lines/s");
  let ok = report(
    "  monitor CPU over 20 s of load",
    cpu,
    "% of a core",
    `<= ${cpuTarget}%`,
    cpu <= cpuTarget,
  );
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
      `<= ${p99Target} ms`,
      missed === 0 && p99 <= p99Target,
    ) && ok;
  return ok;
}

if (!isMainThread && workerData?.role === "load") await loadWorker(workerData);
