// The peers row: the scale bench's 100,000 distinct schedules and the scheduler bench's
// crowded second (1,000 slots due at once), run by node-cron, node-schedule and `cron`
// (devDependencies of the bench only) beside autoloop-cron on the same machine. Targets: at
// least 4x ahead of each on load time and 10x on the crowded second's p99 lateness.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { percentile, report, tempDir } from "../lib.mjs";
import { oneCrowdedSecond } from "../scheduler.mjs";
import { probeStart } from "./load-probe.mjs";
import { writeTree } from "./scale.mjs";

const WORKER = new URL("./peer-worker.mjs", import.meta.url).pathname;
const PEERS = ["node-cron", "node-schedule", "cron"];

/** A peer's 1,000 callbacks for one second 5 s ahead: each one's lateness, in ms. */
function peerCrowd(peer) {
  const at = Math.ceil((Date.now() + 5000) / 1000) * 1000;
  const child = spawn(process.execPath, [WORKER, peer, "crowd", String(at)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (c) => {
    out += c;
  });
  return new Promise((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${peer} crowd exited ${code}`)),
    ),
  );
}

export async function benchPeers() {
  console.log("\n== bench/scheduler/peers ==");
  const dir = tempDir();
  writeTree(dir);
  const ours = await probeStart(["start", "--config", join(dir, "autoloop-cron.toml")], {
    until: /autoloop-cron started/,
  });
  await ours.stop();
  const crowd = await oneCrowdedSecond();
  report(
    "autoloop-cron: 100,000 schedules from files, spawn → started / peak RSS",
    `${ours.ms.toFixed(0)} ms / ${ours.peakMiB.toFixed(0)} MiB`,
    "",
  );
  report("autoloop-cron: 1,000 slots on one second, decision lateness p99", crowd.p99, "ms");
  let ok = true;
  for (const peer of PEERS) {
    const load = await probeStart([peer, "load"], {
      script: WORKER,
      until: /^ready$/,
      timeoutMs: 300_000,
    });
    await load.stop();
    const lateness = await peerCrowd(peer);
    const p99 = lateness.length === 1000 ? percentile(lateness, 99) : Number.POSITIVE_INFINITY;
    const loadRatio = load.ms / ours.ms;
    const fireRatio = p99 / Math.max(crowd.p99, 1);
    ok =
      report(
        `${peer}: 100,000 schedules in memory, spawn → scheduled / peak RSS; autoloop-cron ahead by`,
        `${load.ms.toFixed(0)} ms / ${load.peakMiB.toFixed(0)} MiB; ${loadRatio.toFixed(1)}x`,
        "",
        ">= 4x",
        loadRatio >= 4,
      ) && ok;
    ok =
      report(
        `${peer}: 1,000 jobs on one second, callback lateness p99 (${lateness.length} ran); autoloop-cron ahead by`,
        `${p99} ms; ${fireRatio.toFixed(1)}x`,
        "",
        ">= 10x",
        fireRatio >= 10,
      ) && ok;
  }
  return ok;
}
