// bench/trends: what the status page's trends cost the daemon to render. 100 budgeted
// schedules with 10,000 runs over the last 30 days in the ledger: the overview (a sparkline
// per row and the Spend chart) and a schedule's page (its bars and spend), timed over HTTP on
// loopback, first as the page is first opened (the ledger's summaries read from disk) and then
// as it is opened again.

import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { AUTOLOOP_CRON, median, report } from "./lib.mjs";
import { ledgerWorld } from "./spend.mjs";

const SCHEDULES = 100;
const RUNS = 10_000;

async function daemonAt(config) {
  const child = spawn(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
    stdio: "ignore",
  });
  const info = join(dirname(config), "state", "daemon.json");
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (existsSync(info)) {
      const http = JSON.parse(readFileSync(info, "utf8")).http;
      if (http) return { child, url: http };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGTERM");
  throw new Error("the daemon did not start its HTTP server within 60 s");
}

/** Milliseconds for one GET and its whole body; fails on anything but 200. */
async function timed(url) {
  const start = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  if (!body.includes("<svg")) throw new Error(`${url}: no chart in the page`);
  return performance.now() - start;
}

export async function benchTrends() {
  console.log(`\n== bench/trends: the status page with ${SCHEDULES} schedules, ${RUNS} runs ==`);
  const config = ledgerWorld(SCHEDULES, RUNS, {
    days: 30,
    http: "127.0.0.1:0",
    // Never due while the bench runs: the daemon only serves the page.
    cron: "0 0 1 1 *",
  });
  const { child, url } = await daemonAt(config);
  let ok = true;
  try {
    // The first GET after a start reads every run's summary from disk; later ones do not.
    const first = await timed(`${url}/`);
    report("overview, first GET after the daemon starts (the ledger read from disk)", first, "ms");
    const overview = [];
    const schedule = [];
    for (let i = 0; i < 5; i++) {
      overview.push(await timed(`${url}/`));
      schedule.push(await timed(`${url}/schedules/job-${i}`));
    }
    ok =
      report(
        "overview: sparklines and the Spend chart (median of 5)",
        median(overview),
        "ms",
        "< 1000 ms",
        median(overview) < 1000,
      ) && ok;
    ok =
      report(
        "a schedule's page: bars, runs and spend (median of 5)",
        median(schedule),
        "ms",
        "< 1000 ms",
        median(schedule) < 1000,
      ) && ok;
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
  return ok;
}
