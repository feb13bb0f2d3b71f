// Bundles the two CLIs into dist/bin with esbuild. A bundled CLI starts several times
// faster than hundreds of separately resolved modules (execa and zod alone cost ~300 ms
// of CPU unbundled), which keeps `autoloop run` close to a bare `node` start.
import { chmodSync } from "node:fs";
import { build } from "esbuild";

await build({
  entryPoints: { autoloop: "src/cli/autoloop.ts", "autoloop-cron": "src/cli/autoloop-cron.ts" },
  outdir: "dist/bin",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  chunkNames: "chunks/[name]-[hash]",
  // Packages that load workers or files by path at run time stay in node_modules.
  external: ["pino", "pino-pretty", "thread-stream", "nodemailer", "prom-client", "smtp-server"],
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: "warning",
});
for (const bin of ["dist/bin/autoloop.js", "dist/bin/autoloop-cron.js"]) chmodSync(bin, 0o755);
