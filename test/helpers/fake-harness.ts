// A stand-in for a run's harness that a test can name in a registry: a sleeping Node process
// whose command line is a harness running a loop (`node …/dist/bin/autoloop.cjs run`), as the
// monitor and `guide` require of a hand-started run's pid (src/harness/control/wake.ts).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export function spawnFakeHarness(dir: string): ChildProcess {
  const bin = join(dir, "fake-harness", "dist", "bin", "autoloop.cjs");
  mkdirSync(dirname(bin), { recursive: true });
  writeFileSync(bin, "setTimeout(() => {}, 120000);\n");
  return spawn(process.execPath, [bin, "run"]);
}
