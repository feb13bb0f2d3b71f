// How long a standby daemon (`[ha] lease`) takes to fire once the active one is gone: killed
// with SIGKILL (the lease must lapse) or stopped with SIGTERM (it releases the lease). Measured
// from the signal to the standby's `lease taken`, `autoloop-cron started` and first `fired`.
// Target: a SIGKILL is taken over within twice the lease.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { median, report, tempDir } from "../lib.mjs";
import { probeStart } from "./load-probe.mjs";

const LEASE_MS = 3000;
const TRIALS = 3;

function writeTree(dir) {
  mkdirSync(join(dir, "schedules"));
  mkdirSync(join(dir, "work"));
  writeFileSync(
    join(dir, "autoloop-cron.toml"),
    `state_dir = "state"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "all"\n[ha]\nlease = "${LEASE_MS}ms"\n`,
  );
  writeFileSync(
    join(dir, "schedules", "tick.toml"),
    `[[schedule]]\nname = "tick"\ncron = "* * * * * *"\nkind = "command"\ncommand = ["true"]\nproject_dir = "../work"\n`,
  );
}

/** One takeover: ms from the signal to each of the standby's steps. */
async function takeover(signal) {
  const dir = tempDir();
  writeTree(dir);
  const args = ["start", "--config", join(dir, "autoloop-cron.toml")];
  const active = await probeStart(args, { until: /"fired"/ });
  const seen = {};
  let t0 = Number.POSITIVE_INFINITY;
  const standby = await probeStart(args, {
    until: /standby: another daemon holds the lease/,
    onLine: (line) => {
      for (const [step, re] of [
        ["taken", /lease taken/],
        ["started", /autoloop-cron started/],
        ["fired", /"msg":"fired"/],
      ])
        if (seen[step] === undefined && re.test(line)) seen[step] = performance.now() - t0;
    },
  });
  try {
    t0 = performance.now();
    active.child.kill(signal);
    const deadline = Date.now() + 4 * LEASE_MS + 10_000;
    while (seen.fired === undefined && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    return seen;
  } finally {
    active.child.kill("SIGKILL");
    await standby.stop();
  }
}

export async function benchTakeover() {
  console.log(`\n== bench/scheduler/takeover (lease ${LEASE_MS} ms, median of ${TRIALS}) ==`);
  let ok = true;
  for (const signal of ["SIGKILL", "SIGTERM"]) {
    const trials = [];
    for (let i = 0; i < TRIALS; i++) trials.push(await takeover(signal));
    const at = (step) => median(trials.map((t) => t[step] ?? Number.POSITIVE_INFINITY));
    report(`${signal}: signal → standby's "lease taken"`, at("taken"), "ms");
    report(
      `${signal}: signal → standby started (schedules loaded, runs recovered)`,
      at("started"),
      "ms",
    );
    const worst = Math.max(...trials.map((t) => t.taken ?? Number.POSITIVE_INFINITY));
    if (signal === "SIGKILL")
      ok =
        report(
          "SIGKILL: slowest takeover of the trials",
          worst,
          "ms",
          `< ${2 * LEASE_MS} ms (twice the lease)`,
          worst < 2 * LEASE_MS,
        ) && ok;
    report(`${signal}: signal → the standby's first slot fired`, at("fired"), "ms");
  }
  return ok;
}
