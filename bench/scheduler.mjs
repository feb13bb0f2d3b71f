// bench/scheduler: (a) fire lateness with 1,000 schedules due on the same second (3 runs),
// (b) memory and idle CPU with 10,000 schedules loaded, (c) fire → loop.start latency.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AUTOLOOP_CRON, median, percentile, report, tempDir } from "./lib.mjs";

function setup(dir, files, extra = "") {
  mkdirSync(join(dir, "schedules"), { recursive: true });
  mkdirSync(join(dir, "work"), { recursive: true });
  writeFileSync(
    join(dir, "autoloop-cron.toml"),
    `state_dir = "state"\nlog_level = "info"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "none"\n${extra}`,
  );
  for (const [name, text] of Object.entries(files))
    writeFileSync(join(dir, "schedules", name), text);
}

function startDaemon(dir) {
  const child = spawn(
    process.execPath,
    [AUTOLOOP_CRON, "start", "--config", join(dir, "autoloop-cron.toml")],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines = [];
  let buf = "";
  child.stdout.on("data", (c) => {
    buf += c;
    let nl = buf.indexOf("\n");
    while (nl !== -1) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      nl = buf.indexOf("\n");
    }
  });
  // A benchmark that fails half-way must not leave a daemon behind.
  process.on("exit", () => child.kill("SIGKILL"));
  const stop = () =>
    new Promise((r) => {
      child.on("exit", r);
      child.kill("SIGTERM");
    });
  const waitFor = async (pred, ms) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const hit = lines.find((l) => pred(l));
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("timed out waiting for the daemon");
  };
  return { child, lines, stop, waitFor };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * One daemon, 1,000 schedules due on one second 8 s after the start. Returns each slot's
 * decision lateness and the daemon's own account of the pass ("slots decided", logged a
 * second later: how long the pass held the loop, and the loop's longest delay in that second).
 */
export async function oneCrowdedSecond() {
  const dir = tempDir();
  const at = new Date(Date.now() + 8000);
  const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
  let text = "";
  for (let i = 0; i < 1000; i++) {
    text += `[[schedule]]\nname = "s${i}"\ncron = "${cron}"\nkind = "command"\ncommand = ["true"]\nproject_dir = "../work"\n`;
  }
  setup(dir, { "many.toml": text });
  const d = startDaemon(dir);
  await d.waitFor((l) => l.includes('"autoloop-cron started"'), 20_000);
  const slot = Math.floor(at.getTime() / 1000) * 1000;
  const slotIso = new Date(slot).toISOString();
  // Each slot's first log line: "fired" (the run was spawned) or queued behind
  // max_concurrent_runs (4 by default). Both carry latenessMs, measured by the daemon
  // from the slot's fire time to the spawn or to the queueing decision; the lines
  // themselves are written after the whole batch is decided.
  const firstDecision = new Map();
  let spawned = 0; // runs spawned in the second after the slot (the pass's aftermath)
  let pass;
  const end = Date.now() + 20_000;
  while (Date.now() < end && (firstDecision.size < 1000 || pass === undefined)) {
    for (const line of d.lines.splice(0)) {
      const r = JSON.parse(line);
      if (r.msg === "slots decided") pass = r;
      if (r.msg === "fired" && r.time >= slot && r.time < slot + 1000) spawned++;
      if (r.slot !== slotIso || firstDecision.has(r.schedule)) continue;
      if (r.msg === "fired" || String(r.msg).includes("max_concurrent_runs"))
        firstDecision.set(r.schedule, { lateness: r.latenessMs, logged: r.time - slot });
    }
    await sleep(100);
  }
  await d.stop();
  const decisions = [...firstDecision.values()];
  // The daemon's own figure cannot be later than its own log line: a sanity check.
  if (decisions.some((x) => !(x.lateness >= 0 && x.lateness <= x.logged + 1)))
    throw new Error("a latenessMs field does not fit its log line's time");
  const lateness = decisions.map((x) => x.lateness);
  return {
    decided: firstDecision.size,
    p50: percentile(lateness, 50),
    p99: percentile(lateness, 99),
    lastLine: Math.max(...decisions.map((x) => x.logged)),
    passMs: pass?.durationMs ?? Number.NaN,
    loopDelayMs: pass?.eventLoopMaxDelayMs ?? Number.NaN,
    spawned,
  };
}

/**
 * What spawning alone costs the event loop here: a bare node process that spawns the same
 * wrapper (`/bin/sh -c <script> <program>`) `count` times, evenly over a second, each in its
 * own turn, with nothing else to do; its loop's longest delay (monitorEventLoopDelay) in that
 * second. Shown beside the daemon's figure, not a target: no in-process spawn does better.
 */
function spawnFloor(count) {
  const script = `
    import { spawn } from "node:child_process";
    import { monitorEventLoopDelay } from "node:perf_hooks";
    const h = monitorEventLoopDelay({ resolution: 1 });
    const run = () => new Promise((r) => spawn("/bin/sh", ["-c", 'trap ":" HUP INT TERM; "$@"', "autoloop-run", "true"], { stdio: "ignore", detached: true }).on("exit", r));
    for (let i = 0; i < 5; i++) await run(); // warm: the first spawns of a process are slower
    h.enable();
    const runs = [];
    for (let i = 0; i < ${count}; i++) {
      runs.push(run());
      await new Promise((r) => setTimeout(r, ${Math.floor(1000 / count)}));
    }
    await Promise.all(runs);
    h.disable();
    process.stdout.write(String(h.max / 1e6));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.on("exit", (code) =>
      code === 0 ? resolve(Number(out)) : reject(new Error(`spawn floor exited ${code}`)),
    );
  });
}

/**
 * Three crowded seconds, each in a fresh daemon (the first burst after a start is the
 * coldest case). The targets take the median run, so that one noisy neighbour on a shared
 * 2-core VM does not decide them; every run's figures are printed.
 */
async function sameSecond() {
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await oneCrowdedSecond());
  for (const [i, r] of runs.entries())
    report(
      `1,000 schedules due on the same second, run ${i + 1}`,
      `${r.decided} decided, lateness p50 ${r.p50} / p99 ${r.p99} ms, pass ${r.passMs} ms, loop's longest delay in the second after ${r.loopDelayMs} ms (${r.spawned} runs spawned in it), last line ${r.lastLine} ms after the slot`,
      "",
    );
  const count = Math.max(1, median(runs.map((r) => r.spawned)));
  const floors = [];
  for (let i = 0; i < 3; i++) floors.push(await spawnFloor(count));
  report(
    `  floor: a bare node process spawning the same wrapper ${count} times over a second, loop's longest delay (median of 3)`,
    `${median(floors).toFixed(1)} (${floors.map((f) => f.toFixed(1)).join(", ")})`,
    "ms",
  );
  const med = (key) => median(runs.map((r) => r[key]));
  const decidedOk = runs.every((r) => r.decided === 1000);
  let ok = report(
    "  decision lateness p99 (launched, or queued at max_concurrent_runs = 4), median run",
    med("p99"),
    "ms",
    "<= 20 ms",
    decidedOk && med("p99") <= 20,
  );
  ok =
    report(
      "  event loop held by the firing pass (`slots decided` durationMs), median run",
      med("passMs"),
      "ms",
      "<= 50 ms",
      med("passMs") <= 50,
    ) && ok;
  return (
    report(
      "  event loop's longest delay in the second after (spawns with their fsyncs, log lines), median run",
      med("loopDelayMs"),
      "ms",
      "<= 50 ms",
      med("loopDelayMs") <= 50,
    ) && ok
  );
}

function procStat(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  const ticks = Number(stat[11]) + Number(stat[12]);
  const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;
  return { ticks, rss };
}

async function tenThousand() {
  const dir = tempDir();
  const files = {};
  for (let f = 0; f < 10; f++) {
    let text = "";
    for (let i = 0; i < 1000; i++) {
      const n = f * 1000 + i;
      // Distinct patterns in several zones, none due during the measurement (January only).
      text += `[[schedule]]\nname = "s${n}"\ncron = "${n % 60} ${Math.floor(n / 60) % 24} ${1 + (n % 28)} 1 *"\ntimezone = "${["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"][n % 5]}"\nkind = "command"\ncommand = ["true"]\nproject_dir = "../work"\n`;
    }
    files[`f${f}.toml`] = text;
  }
  setup(dir, files);
  const d = startDaemon(dir);
  await d.waitFor((l) => l.includes('"autoloop-cron started"'), 120_000);
  // Idle means steady state. Once, 55-75 s after the load, V8's memory reducer compacts the
  // heap the load left (three full collections, ~150 ms of CPU in all); when that lands in a
  // single 30 s window it triples the figure. So: ten 10 s windows from 20 s after start, the
  // median window is the idle figure, and the mean over all ten is reported beside it.
  await sleep(20_000);
  const windows = [];
  let last = procStat(d.child.pid);
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    await sleep(10_000);
    const now = procStat(d.child.pid);
    windows.push(((now.ticks - last.ticks) / 100 / ((performance.now() - t0) / 1000)) * 100);
    last = now;
  }
  const b = last;
  await d.stop();
  const cpu = median(windows);
  const mean = windows.reduce((x, y) => x + y, 0) / windows.length;
  let ok = report(
    "10,000 schedules loaded: RSS",
    b.rss / 2 ** 20,
    "MiB",
    "<= 150 MB",
    b.rss <= 150e6,
  );
  ok =
    report(
      `10,000 schedules loaded: idle CPU, median 10 s window (mean of 10 incl. the heap compaction: ${mean.toFixed(2)}%, busiest ${Math.max(...windows).toFixed(2)}%)`,
      cpu,
      "% of a core",
      "<= 0.5%",
      cpu <= 0.5,
    ) && ok;
  return ok;
}

async function fireToLoopStart() {
  const dir = tempDir();
  mkdirSync(join(dir, "noop"), { recursive: true });
  writeFileSync(
    join(dir, "noop", "autoloops.toml"),
    `[event_loop]\nmax_iterations = 1\nstall_iterations = 0\n[backend]\ncommand = "true"\nprompt_mode = "file"\n`,
  );
  setup(dir, {
    "one.toml": `[[schedule]]\nname = "tick"\ncron = "* * * * * *"\npreset = "../noop"\nobjective = "nothing"\nproject_dir = "../work"\noverlap = "allow"\n`,
  });
  const d = startDaemon(dir);
  await d.waitFor((l) => l.includes('"autoloop-cron started"'), 20_000);
  // Bare spawns measured while the daemon runs, so both sides see the same machine load.
  const bare = [];
  const end = Date.now() + 12_000;
  while (Date.now() < end) {
    const t = performance.now();
    await new Promise((r) => spawn(process.execPath, ["-e", ""]).on("exit", r));
    bare.push(performance.now() - t);
    await sleep(300);
  }
  await d.stop();
  const fires = new Map(
    d.lines
      .map((l) => JSON.parse(l))
      .filter((r) => r.msg === "fired")
      .map((r) => [r.runId, Date.parse(r.slot)]),
  );
  const starts = readFileSync(join(dir, "work/.autoloop/journal.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((r) => r.topic === "loop.start");
  const delays = starts
    .filter((r) => fires.has(r.run))
    .map((r) => Date.parse(r.ts) - fires.get(r.run));
  report("fire → loop.start: runs measured", delays.length, "");
  report("  fire → loop.start median", median(delays), "ms");
  report("  bare `node -e ''` spawn median (during the same 12 s)", median(bare), "ms");
  const over = median(delays) - median(bare);
  return report(
    "  fire → loop.start beyond a bare node spawn",
    over,
    "ms",
    "<= 150 ms",
    over <= 150,
  );
}

export async function benchScheduler() {
  console.log("\n== bench/scheduler ==");
  // BENCH_SCHEDULER=a runs only (a), say, while working on it.
  const parts = process.env.BENCH_SCHEDULER ?? "abc";
  let ok = true;
  if (parts.includes("a")) ok = (await sameSecond()) && ok;
  if (parts.includes("b")) ok = (await tenThousand()) && ok;
  if (parts.includes("c")) ok = (await fireToLoopStart()) && ok;
  return ok;
}
