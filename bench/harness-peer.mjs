// bench/harness (peer row): 100 no-op iterations in our harness and in the public autoloop,
// alternating, when AUTOLOOP_PEER_BIN names the public autoloop's bin (it is not on the npm
// registry this bench can reach, so it is never installed here: build it yourself and point
// the variable at its `bin/autoloop`). The same preset for both; theirs also gets
// `[review] enabled = false`, since it runs a metareview before every iteration by default
// and ours runs none without a `[review]` table.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "./harness.mjs";
import { AUTOLOOP, median, report, tempDir } from "./lib.mjs";

const NOOP = `[event_loop]\nmax_iterations = 1000\nstall_iterations = 0\n[backend]\ncommand = "true"\nprompt_mode = "file"\n`;

function presetDir(root, name, extra) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "autoloops.toml"), NOOP + extra);
  return dir;
}

/** Wall time of one 100-iteration run of `bin` in `dir` (its journal removed first). */
async function hundred(bin, dir, extraArgs) {
  rmSync(join(dir, ".autoloop"), { recursive: true, force: true });
  const r = await run([bin, "run", dir, "--max-iterations", "100", ...extraArgs], dir);
  return r.wallMs;
}

/** The ratio row; true when there is no peer to compare with (nothing to check). */
export async function benchPeer() {
  console.log("\n== bench/harness-peer: 100 no-op iterations against the public autoloop ==");
  const peer = process.env.AUTOLOOP_PEER_BIN;
  if (peer === undefined) {
    console.log("      public autoloop: AUTOLOOP_PEER_BIN is not set; no peer row");
    return true;
  }
  const root = tempDir();
  const ours = presetDir(root, "ours", "");
  const theirs = presetDir(root, "theirs", "[review]\nenabled = false\n");
  const times = { ours: [], theirs: [] };
  for (let i = 0; i < 5; i++) {
    // Alternating (and swapping who goes first), so the machine's load hits both alike.
    const order = i % 2 === 0 ? ["theirs", "ours"] : ["ours", "theirs"];
    for (const who of order)
      times[who].push(
        who === "ours"
          ? await hundred(AUTOLOOP, ours, ["--quiet"])
          : await hundred(peer, theirs, ["--set", "core.log_level=warn"]),
      );
  }
  const [a, b] = [median(times.ours), median(times.theirs)];
  report("100 no-op iterations, ours (median of 5, alternating)", a, "ms");
  report("100 no-op iterations, the public autoloop (median of 5, alternating)", b, "ms");
  return report("ours vs the public autoloop", a / b, "x", "<= 0.25x", a / b <= 0.25);
}
