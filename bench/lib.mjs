// Shared benchmark helpers: temp dirs, timing, percentiles, and a result table.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

export const ROOT = new URL("..", import.meta.url).pathname;
export const AUTOLOOP = join(ROOT, "dist/bin/autoloop.cjs");
export const AUTOLOOP_CRON = join(ROOT, "dist/bin/autoloop-cron.js");

const dirs = [];
export function tempDir(prefix = "autoloop-bench-") {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}
process.on("exit", () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function median(values) {
  return percentile(values, 50);
}

/** Prints one benchmark line and returns whether it met its target. */
export function report(name, value, unit, target, ok) {
  const mark = target === undefined ? "    " : ok ? "PASS" : "FAIL";
  console.log(
    `${mark}  ${name}: ${typeof value === "number" ? value.toFixed(value < 10 ? 2 : 1) : value} ${unit}${target ? `  (target ${target})` : ""}`,
  );
  return target === undefined || ok;
}

/** CPU time (user + system, ms) of a process so far, from /proc. */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Bundles bench/<name>.ts into the checkout (so its packages resolve from node_modules). */
export async function bundleBench(name) {
  const outfile = join(ROOT, `.scratch/bench/${name}.mjs`);
  await build({
    entryPoints: [join(ROOT, `bench/${name}.ts`)],
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    outfile,
    logLevel: "silent",
  });
  return outfile;
}
