// (a) A `task.gate` append → the webhook request, through an idle `autoloop-cron monitor`
// process (production's shape) and a real webhook receiver on loopback.
import { percentile, report, tempDir } from "../lib.mjs";
import { appendGate, project } from "./records.mjs";
import { pair, sleep, startMonitor, webhookReceiver, writeConfig } from "./shared.mjs";

// ---- (a) task.gate → webhook, idle monitor ----

export async function gateToWebhook(E) {
  // 200 samples: a p99 of 80 would be the single worst one.
  const SAMPLES = 200;
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
      await sleep(60 + Math.random() * 120);
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
  let ok = report("  append → webhook request p50", p50, "ms", "<= 5 ms", p50 <= 5);
  ok = report("  append → webhook request p99", p99, "ms", "<= 20 ms", p99 <= 20) && ok;
  if (monitor.problems.length > 0) report("  monitor warnings", monitor.problems[0], "");
  return ok;
}
