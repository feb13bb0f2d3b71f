#!/usr/bin/env node
// `autoloop` (written to dist/bin/autoloop.cjs by scripts/bundle.mjs): starts the bundled
// harness, dist/bin/autoloop-main.cjs, from V8's code cache when one fits. `autoloop run`
// starts once per run and `autoloop emit` once per event inside one; compiling the bundle
// from source took ~15 ms of its ~100 ms beyond a bare node start.
//
// The cache sits next to the bundle and its name carries the hash the build gave the bundle,
// so a rebuilt bundle never meets an old cache (V8 checks only the source's length; editing a
// built bundle in place is not supported: rebuild). V8 rejects a cache made by another Node
// or with other flags, so the name also carries a hash of the Node version and its options
// (command line and NODE_OPTIONS): a wrapper that starts `autoloop` with `--max-old-space-size`
// gets a cache of its own instead of replacing everyone else's at each start. A missing or
// rejected cache is written as the run exits, atomically, if the folder is writable (a
// read-only install just compiles, and does not try).
// `npm run build` warms it with a one-iteration no-op run. NODE_DISABLE_COMPILE_CACHE=1, as
// for Node's own compile cache, turns it off.
"use strict";
const {
  accessSync,
  constants,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} = require("node:fs");
const Module = require("node:module");
const { join } = require("node:path");
const { Script } = require("node:vm");

const BUILD_ID = "__BUILD_ID__";
const main = join(__dirname, "autoloop-main.cjs");
const cacheFile = join(__dirname, `autoloop-main.${BUILD_ID}.${nodeKey()}.v8cache`);
const useCache = !process.env.NODE_DISABLE_COMPILE_CACHE;

/** FNV-1a of what V8 checks a cache against beyond the source: Node's version and flags. */
function nodeKey() {
  const text = [process.version, ...process.execArgv, process.env.NODE_OPTIONS ?? ""].join("\0");
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

function readCache() {
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

function writable(dir) {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function writeCache(script) {
  const temp = `${cacheFile}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
  try {
    writeFileSync(temp, script.createCachedData());
    renameSync(temp, cacheFile);
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {}
  }
}

const cachedData = useCache ? readCache() : undefined;
// The bundle starts with a `#!` line, which is only valid as a script's very first bytes.
const source = readFileSync(main, "utf8").replace(/^#!/, "//");
const script = new Script(Module.wrap(source), { filename: main, cachedData });
// Written at exit so that it also holds the functions this run compiled lazily.
if (useCache && (cachedData === undefined || script.cachedDataRejected) && writable(__dirname))
  process.once("exit", () => writeCache(script));
const bundle = new Module(main, module);
bundle.filename = main;
script.runInThisContext()(bundle.exports, Module.createRequire(main), bundle, main, __dirname);
