// `autoloop` starts its bundle from V8's code cache (scripts/autoloop-bin.cjs): written next to
// the bundle under the bundle's hash, used as long as V8 accepts it, replaced when it does not.
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, cleanupTempDirs, ROOT, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

/** The hash the build put in the loader (and in its cache's name). */
function buildIdOf(loader: string): string | undefined {
  return /const BUILD_ID = "([0-9a-f]{16})";/.exec(readFileSync(loader, "utf8"))?.[1];
}

/** A copy of the built package's `autoloop` (loader, bundle, package.json), without a cache. */
function installCopy(): { bin: string; cacheFile: string } {
  const root = tempDir("autoloop-cache-");
  const binDir = join(root, "dist", "bin");
  mkdirSync(binDir, { recursive: true });
  copyFileSync(join(ROOT, "package.json"), join(root, "package.json"));
  for (const f of ["autoloop.cjs", "autoloop-main.cjs"])
    copyFileSync(join(ROOT, "dist", "bin", f), join(binDir, f));
  const buildId = buildIdOf(join(binDir, "autoloop.cjs"));
  expect(buildId).toBeDefined();
  return {
    bin: join(binDir, "autoloop.cjs"),
    cacheFile: join(binDir, `autoloop-main.${buildId}.v8cache`),
  };
}

function version(bin: string, env: Record<string, string> = {}) {
  return execa(process.execPath, [bin, "--version"], {
    reject: false,
    env: cleanEnv(env),
    extendEnv: false,
  });
}

function cacheFiles(bin: string): string[] {
  return readdirSync(join(bin, "..")).filter((f) => f.includes(".v8cache"));
}

describe("autoloop's compile cache", () => {
  it("is written by a first start under the bundle's hash and left as is by the next", async () => {
    const { bin, cacheFile } = installCopy();
    const first = await version(bin);
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/\d+\.\d+\.\d+/);
    expect(cacheFiles(bin)).toEqual([cacheFile.split("/").pop()]);
    const written = readFileSync(cacheFile);
    const mtime = statSync(cacheFile).mtimeMs;

    const second = await version(bin);
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    // V8 accepted it: a rejected cache would have been rewritten.
    expect(statSync(cacheFile).mtimeMs).toBe(mtime);
    expect(readFileSync(cacheFile).equals(written)).toBe(true);
  });

  it("replaces a cache V8 rejects, and the command runs as usual", async () => {
    const { bin, cacheFile } = installCopy();
    writeFileSync(cacheFile, Buffer.alloc(4096, 7));
    const r = await version(bin);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/\d+\.\d+\.\d+/);
    expect(readFileSync(cacheFile).equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(cacheFiles(bin)).toEqual([cacheFile.split("/").pop()]); // no temp file left
  });

  it("is neither read nor written with NODE_DISABLE_COMPILE_CACHE set", async () => {
    const { bin } = installCopy();
    const r = await version(bin, { NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(r.exitCode).toBe(0);
    expect(cacheFiles(bin)).toEqual([]);
  });

  it("was warmed by the build with a run, so it holds more than a bare start compiles", async () => {
    const buildId = buildIdOf(join(ROOT, "dist", "bin", "autoloop.cjs"));
    const warm = join(ROOT, "dist", "bin", `autoloop-main.${buildId}.v8cache`);
    const { bin, cacheFile } = installCopy();
    expect((await version(bin)).exitCode).toBe(0);
    expect(statSync(warm).size).toBeGreaterThan(statSync(cacheFile).size * 1.5);
  });
});
