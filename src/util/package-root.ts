// Locates this package's root (the folder with our package.json) from any module,
// bundled or not, so bundled presets and the CLI entry are found wherever we are installed.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, "package.json");
    if (
      existsSync(pkg) &&
      (JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "autoloop-cron"
    ) {
      cached = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error("cannot find the autoloop-cron package root above this module");
    dir = parent;
  }
}

/** The bundled presets folder. */
export function bundledPresetsDir(): string {
  return join(packageRoot(), "presets");
}

/** The `autoloop` CLI entry point (what the event tool and the scheduler run). */
export function autoloopEntry(): string {
  return join(packageRoot(), "dist", "bin", "autoloop.cjs");
}

/** The `autoloop-cron` CLI entry point. */
export function autoloopCronEntry(): string {
  return join(packageRoot(), "dist", "bin", "autoloop-cron.js");
}
