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
function installCopy(): { bin: string; buildId: string } {
  const root = tempDir("autoloop-cache-");
  const binDir = join(root, "dist", "bin");
  mkdirSync(binDir, { recursive: true });
  copyFileSync(join(ROOT, "package.json"), join(root, "package.json"));
  for (const f of ["autoloop.cjs", "autoloop-main.cjs"])
    copyFileSync(join(ROOT, "dist", "bin", f), join(binDir, f));
  const buildId = buildIdOf(join(binDir, "autoloop.cjs"));
  expect(buildId).toBeDefined();
  return { bin: join(binDir, "autoloop.cjs"), buildId: buildId! };
}

function version(bin: string, env: Record<string, string> = {}, nodeArgs: string[] = []) {
  return execa(process.execPath, [...nodeArgs, bin, "--version"], {
    reject: false,
    env: cleanEnv(env),
    extendEnv: false,
  });
}

function cacheFiles(bin: string): string[] {
  return readdirSync(join(bin, "..")).filter((f) => f.includes(".v8cache"));
}

/** The one cache file in the copy's folder, named `autoloop-main.<build>.<node key>.v8cache`. */
function onlyCache(bin: string, buildId: string): string {
  const files = cacheFiles(bin);
  expect(files).toHaveLength(1);
  expect(files[0]).toMatch(new RegExp(`^autoloop-main\\.${buildId}\\.[0-9a-f]{8}\\.v8cache$`));
  return join(bin, "..", files[0]!);
}

describe("autoloop's compile cache", () => {
  it("is written by a first start under the bundle's hash and left as is by the next", async () => {
    const { bin, buildId } = installCopy();
    const first = await version(bin);
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/\d+\.\d+\.\d+/);
    const cacheFile = onlyCache(bin, buildId);
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
    const { bin, buildId } = installCopy();
    expect((await version(bin)).exitCode).toBe(0);
    const cacheFile = onlyCache(bin, buildId);
    writeFileSync(cacheFile, Buffer.alloc(4096, 7));
    const r = await version(bin);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/\d+\.\d+\.\d+/);
    expect(readFileSync(cacheFile).equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(onlyCache(bin, buildId)).toBe(cacheFile); // no temp file left
  });

  it("keeps one cache per set of Node options, so a flagged start leaves the plain one alone", async () => {
    const { bin, buildId } = installCopy();
    expect((await version(bin)).exitCode).toBe(0);
    const plain = onlyCache(bin, buildId);
    const mtime = statSync(plain).mtimeMs;
    const flagged = await version(bin, {}, ["--max-old-space-size=512"]);
    expect(flagged.exitCode).toBe(0);
    const viaEnv = await version(bin, { NODE_OPTIONS: "--max-old-space-size=256" });
    expect(viaEnv.exitCode).toBe(0);
    expect(cacheFiles(bin)).toHaveLength(3);
    expect(statSync(plain).mtimeMs).toBe(mtime);
  });

  it("is neither read nor written with NODE_DISABLE_COMPILE_CACHE set", async () => {
    const { bin } = installCopy();
    const r = await version(bin, { NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(r.exitCode).toBe(0);
    expect(cacheFiles(bin)).toEqual([]);
  });

  it("was warmed by the build with a run, so it holds more than a bare start compiles", async () => {
    const { bin, buildId } = installCopy();
    expect((await version(bin)).exitCode).toBe(0);
    const bare = onlyCache(bin, buildId);
    // The build's warm-up ran under the same Node and options, so it wrote the same name.
    const warm = join(ROOT, "dist", "bin", bare.split("/").pop()!);
    expect(statSync(warm).size).toBeGreaterThan(statSync(bare).size * 1.5);
  });
});
