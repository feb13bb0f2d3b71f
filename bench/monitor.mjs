// bench/monitor: (a) a `task.gate` append → the webhook request, (b) 1,000 and 10,000
// journals at ~1,000 lines/s: monitor CPU and detection latency, (c) a first pass over a
// 200 MB journal.
//
// (a) and (b) run the monitor as production does, `autoloop-cron monitor --config ...` in its
// own process (its CPU read from /proc/<pid>/stat), with a real webhook receiver here. (b)'s
// load comes from a worker thread of this file, so its writes never delay the receiver's
// clock. (c) runs the follower in a fresh child Node process (bundled from src/ on the fly),
// so its CPU time (process.cpuUsage) and garbage are its own.
// BENCH_MONITOR_CPU_PROF=<dir> runs the monitor children with --cpu-prof into <dir>.
import { bigJournal } from "./monitor/big-journal.mjs";
import { gateToWebhook } from "./monitor/gate-to-webhook.mjs";
import { manyJournals } from "./monitor/many-journals.mjs";
import { bundleEntry, importBundle } from "./monitor/shared.mjs";

export async function benchMonitor() {
  console.log("\n== bench/monitor ==");
  const bundle = await bundleEntry();
  const E = await importBundle(bundle);
  // BENCH_MONITOR=ac runs only (a) and (c), say, while working on them.
  const parts = process.env.BENCH_MONITOR ?? "abc";
  let ok = true;
  if (parts.includes("a")) ok = (await gateToWebhook(E)) && ok;
  if (parts.includes("b")) {
    ok = (await manyJournals(E, bundle, { journals: 1000, cpuTarget: 15, p99Target: 50 })) && ok;
    ok =
      (await manyJournals(E, bundle, { journals: 10_000, cpuTarget: 100, p99Target: 100 })) && ok;
  }
  if (parts.includes("c")) ok = (await bigJournal(E, bundle)) && ok;
  return ok;
}
