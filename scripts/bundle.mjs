// Bundles the two CLIs into dist/bin with esbuild. A bundled CLI starts several times
// faster than hundreds of separately resolved modules (execa and zod alone cost ~300 ms
// of CPU unbundled), which keeps `autoloop run` close to a bare `node` start.
import { spawnSync } from "node:child_process";
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
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  // Packages that load workers or files by path at run time stay in node_modules.
  external: ["pino", "pino-pretty", "thread-stream", "nodemailer", "prom-client", "smtp-server"],
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: "warning",
};

// Chunk names carry content hashes: start from an empty folder so old chunks do not pile up.
rmSync("dist/bin", { recursive: true, force: true });
await Promise.all([
  // `autoloop` starts once per run (and per `autoloop emit` inside one): one CommonJS file, so
  // that start-up reads and compiles a single script and skips the ES module loader (~40 ms
  // here: it builds a module facade for every built-in the bundle imports); its subcommands
  // stay lazily evaluated. `import.meta.url` becomes the file's own URL. The `autoloop`
  // command itself is scripts/autoloop-bin.cjs, which starts this bundle from V8's code cache.
  build({
    ...common,
    entryPoints: { "autoloop-main": "src/cli/autoloop.ts" },
    outExtension: { ".js": ".cjs" },
    format: "cjs",
    splitting: false,
    banner: {},
    define: { "import.meta.url": "__autoloopFileUrl" },
    inject: ["scripts/file-url-shim.js"],
  }),
  // The daemon's subcommands share most of their code: chunks keep each one's load small.
  build({
    ...common,
    entryPoints: { "autoloop-cron": "src/cli/autoloop-cron.ts" },
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
  }),
]);
const buildId = createHash("sha256")
  .update(readFileSync("dist/bin/autoloop-main.cjs"))
  .digest("hex")
  .slice(0, 16);
writeFileSync(
  "dist/bin/autoloop.cjs",
  readFileSync("scripts/autoloop-bin.cjs", "utf8").replace("__BUILD_ID__", buildId),
);
for (const bin of ["dist/bin/autoloop.cjs", "dist/bin/autoloop-cron.js"]) chmodSync(bin, 0o755);
warmCompileCache();

/**
 * One no-op iteration of the built harness, so that its code cache holds what a run
 * compiles. Best effort: without it the first real run writes the cache.
 */
function warmCompileCache() {
  const dir = mkdtempSync(join(tmpdir(), "autoloop-build-"));
  try {
    mkdirSync(join(dir, "noop"));
    writeFileSync(
      join(dir, "noop", "autoloops.toml"),
      '[event_loop]\nmax_iterations = 1\n[backend]\ncommand = "true"\nprompt_mode = "file"\n',
    );
    // Not bound to any run this build may itself be part of; its private folder (launch and
    // end records) in the temp dir, not the builder's ~/.local/state.
    const env = {
      ...Object.fromEntries(
        Object.entries(process.env).filter(([key]) => !key.startsWith("AUTOLOOP")),
      ),
      AUTOLOOP_OPERATOR_DIR: join(dir, "operator"),
    };
    const r = spawnSync(
      process.execPath,
      ["dist/bin/autoloop.cjs", "run", join(dir, "noop"), "--work-dir", dir, "--quiet"],
      { stdio: "ignore", timeout: 60_000, env },
    );
    const warmed = readdirSync("dist/bin").some((f) => f.endsWith(".v8cache"));
    if (!warmed)
      console.warn(
        `bundle: the compile cache was not warmed (${r.error?.message ?? `exit ${r.status}`}); the first run writes it`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
