// Bundles the two CLIs into dist/bin with esbuild. A bundled CLI starts several times
// faster than hundreds of separately resolved modules (execa and zod alone cost ~300 ms
// of CPU unbundled), which keeps `autoloop run` close to a bare `node` start.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const common = {
  outdir: "dist/bin",
  bundle: true,
  platform: "node",
  target: "node20",
  sourcemap: true,
  // Packages that load workers or files by path at run time stay in node_modules.
  external: ["pino", "pino-pretty", "thread-stream", "nodemailer", "prom-client", "smtp-server"],
  logLevel: "warning",
};

rmSync("dist/bin", { recursive: true, force: true });
// Each CLI is one CommonJS file, so that start-up reads and compiles a single script and skips
// the ES module loader (~40 ms for `autoloop`: it builds a module facade for every built-in
// the bundle imports; for the daemon's 100 chunks, ~150 ms with the compiling); subcommands
// stay lazily evaluated. `import.meta.url` becomes the file's own URL. Each command is a
// copy of scripts/autoloop-bin.cjs, which starts its bundle from V8's code cache.
const cjs = (name, entry) =>
  build({
    ...common,
    entryPoints: { [name]: entry },
    outExtension: { ".js": ".cjs" },
    format: "cjs",
    define: { "import.meta.url": "__autoloopFileUrl" },
    inject: ["scripts/file-url-shim.js"],
  });
// `autoloop` starts once per run (and per `autoloop emit` inside one); `autoloop-cron` once
// per daemon, timer-fired run and operator command.
await Promise.all([
  cjs("autoloop-main", "src/cli/autoloop.ts"),
  cjs("autoloop-cron-main", "src/cli/autoloop-cron.ts"),
]);
/** Writes `bin`, the loader of dist/bin/<main>.cjs, with the bundle's hash for its cache. */
function writeLoader(bin, main) {
  const buildId = createHash("sha256")
    .update(readFileSync(`dist/bin/${main}.cjs`))
    .digest("hex")
    .slice(0, 16);
  const loader = readFileSync("scripts/autoloop-bin.cjs", "utf8")
    .replace("__BUILD_ID__", buildId)
    .replaceAll("__MAIN__", main);
  writeFileSync(bin, loader);
}
writeLoader("dist/bin/autoloop.cjs", "autoloop-main");
writeLoader("dist/bin/autoloop-cron.cjs", "autoloop-cron-main");
// The `autoloop-cron` command keeps its path (units, containers and scripts name it); the
// package is "type": "module", so a .js file is an ES module: it hands over to the loader.
writeFileSync(
  "dist/bin/autoloop-cron.js",
  '#!/usr/bin/env node\n// The `autoloop-cron` command: see autoloop-cron.cjs.\nimport { createRequire } from "node:module";\n\ncreateRequire(import.meta.url)("./autoloop-cron.cjs");\n',
);
for (const bin of [
  "dist/bin/autoloop.cjs",
  "dist/bin/autoloop-cron.js",
  "dist/bin/autoloop-cron.cjs",
])
  chmodSync(bin, 0o755);
warmHarnessCache();
await warmDaemonCache();

/**
 * One no-op iteration of the built harness, so that its code cache holds what a run
 * compiles. Best effort: without it the first real run writes the cache.
 */
function warmHarnessCache() {
  const dir = mkdtempSync(join(tmpdir(), "autoloop-build-"));
  try {
    mkdirSync(join(dir, "noop"));
    writeFileSync(
      join(dir, "noop", "autoloops.toml"),
      '[event_loop]\nmax_iterations = 1\n[backend]\ncommand = "true"\nprompt_mode = "file"\n',
    );
    // Not bound to any run this build may itself be part of.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith("AUTOLOOP")),
    );
    const r = spawnSync(
      process.execPath,
      ["dist/bin/autoloop.cjs", "run", join(dir, "noop"), "--work-dir", dir, "--quiet"],
      { stdio: "ignore", timeout: 60_000, env },
    );
    if (!readdirSync("dist/bin").some((f) => /^autoloop-main\..*\.v8cache$/.test(f)))
      console.warn(
        `bundle: the harness's compile cache was not warmed (${r.error?.message ?? `exit ${r.status}`}); its first run writes it`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A daemon started on one schedule and stopped once it has started, so that its code cache
 * holds what a start compiles. Best effort, as for the harness.
 */
async function warmDaemonCache() {
  const dir = mkdtempSync(join(tmpdir(), "autoloop-cron-build-"));
  try {
    mkdirSync(join(dir, "schedules"));
    writeFileSync(join(dir, "c.toml"), 'state_dir = "state"\n[http]\nlisten = ""\n');
    writeFileSync(
      join(dir, "schedules", "a.toml"),
      '[[schedule]]\nname = "a"\ncron = "0 0 1 1 *"\nkind = "command"\ncommand = ["true"]\n',
    );
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith("AUTOLOOP")),
    );
    const daemon = spawn(
      process.execPath,
      ["dist/bin/autoloop-cron.js", "start", "--config", join(dir, "c.toml")],
      { stdio: ["ignore", "pipe", "ignore"], env },
    );
    const exited = new Promise((resolve) => daemon.on("close", resolve));
    let out = "";
    const timer = setTimeout(() => daemon.kill("SIGKILL"), 60_000);
    daemon.stdout.on("data", (chunk) => {
      out += chunk;
      // Once (a second signal makes the daemon exit at once, before its shutdown ran), and
      // after its first half second of service: a cache written right at "started" held half
      // of what one written then does (0.5 against 1.1 MB), and a start gained less from it.
      if (out !== "" && out.includes("autoloop-cron started")) {
        setTimeout(() => daemon.kill("SIGINT"), 500);
        out = "";
        daemon.stdout.removeAllListeners("data");
        daemon.stdout.resume();
      }
    });
    const code = await exited;
    clearTimeout(timer);
    if (!readdirSync("dist/bin").some((f) => /^autoloop-cron-main\..*\.v8cache$/.test(f)))
      console.warn(
        `bundle: the daemon's compile cache was not warmed (exit ${code}); its first start writes it`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
