// bench/delivery: what delivering a run as its schedule's pull request costs the daemon beyond
// the push itself: each of 8 schedules' runs opened, then updated, as GitHub pull requests
// through the daemon's queue, against the suite's loopback GitHub (its OpenAPI checks
// included) and a real bare repository behind git's smart-HTTP server. The daemon's side runs
// in a child process of its own (bench/delivery-daemon.ts, bundled), so the forge's work and
// the push's git are not counted as its CPU; its wall time after the push comes from the
// queue's own records (the `pushed` line, then the `delivered` one).
import { spawn } from "node:child_process";
import { bundleBench, median, report } from "./lib.mjs";

const SCHEDULES = 8;
const TOKEN = "ghp_benchtoken0123456789abcdef";

function daemonSide(file, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, JSON.stringify(args)], { env });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out))
        : reject(new Error(`daemon side exited ${code}: ${err}`)),
    );
  });
}

export async function benchDelivery() {
  console.log("\n== bench/delivery: a run's pull request, beyond the push (loopback GitHub) ==");
  const [helpersFile, daemonFile] = await Promise.all([
    bundleBench("delivery-entry"),
    bundleBench("delivery-daemon"),
  ]);
  const { cleanupTempDirs, deliveryProject, FakeGitHub, GIT_ENV } = await import(helpersFile);
  const p = await deliveryProject("octo/app", TOKEN);
  const github = await new FakeGitHub("octo", "app", TOKEN).start();
  try {
    const env = { ...process.env, ...GIT_ENV, GH_TOKEN: TOKEN };
    const args = { root: p.root, project: p.project, apiUrl: github.url };
    // The loopback forge compiles each route's schema on its first use: once, before measuring.
    await daemonSide(daemonFile, { ...args, schedules: 1, prefix: "warm" }, env);
    const t = await daemonSide(daemonFile, { ...args, schedules: SCHEDULES, prefix: "job" }, env);
    if (github.problems.length > 0) throw new Error(github.problems.join("\n"));
    const [first, ...opens] = t.filter((x) => x.round === "open");
    const updates = t.filter((x) => x.round === "update");
    const m = (xs, k) => median(xs.map((x) => x[k]));
    report(
      "first delivery after a start (loads Octokit): wall after the push",
      first.afterPushMs,
      "ms",
    );
    report("first delivery after a start: daemon CPU", first.cpuMs, "ms");
    report(
      `open: whole delivery, push included (median of ${opens.length})`,
      m(opens, "wallMs"),
      "ms",
    );
    report(
      `update: whole delivery, push included (median of ${updates.length})`,
      m(updates, "wallMs"),
      "ms",
    );
    let ok = true;
    for (const [what, xs] of [
      ["open", opens],
      ["update", updates],
    ]) {
      const after = m(xs, "afterPushMs");
      const cpu = m(xs, "cpuMs");
      ok =
        report(
          `${what}: daemon wall time after the push`,
          after,
          "ms",
          "< 1000 ms",
          after < 1000,
        ) && ok;
      ok =
        report(
          `${what}: daemon CPU per delivery, push's spawn included`,
          cpu,
          "ms",
          "< 1000 ms",
          cpu < 1000,
        ) && ok;
    }
    return ok;
  } finally {
    await github.close();
    await p.gitHttp.close();
    cleanupTempDirs();
  }
}
