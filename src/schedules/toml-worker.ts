// Schedule files' TOML parsed in a worker thread, for the daemon. A file of a thousand entries
// is one synchronous smol-toml call, long enough to hold the daemon's event loop past what a
// due slot or /healthz should wait; in a worker it holds nothing. The worker stats each file
// before reading it, so a file changed meanwhile is known by its signature and read again on
// the main thread; so is one the worker could not parse, whose problem is worded there.
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { type SignedStat, signatureOf } from "../util/file-signature.js";

/** A file's TOML as the worker parsed it, and the signature of the version it read. */
export interface ParsedToml {
  signature: string;
  value: Record<string, unknown>;
}

type Answer = { path: string; stat?: SignedStat; value?: Record<string, unknown> } | null;

const workerSource = (smolToml: string) => `
const { parentPort } = require("node:worker_threads");
const { readFileSync, statSync } = require("node:fs");
const { parse } = require(${JSON.stringify(smolToml)});
const utf8 = new TextDecoder("utf-8", { fatal: true });
parentPort.on("message", (paths) => {
  for (const path of paths) {
    try {
      const { size, mtimeMs, ino, ctimeMs } = statSync(path);
      const value = parse(utf8.decode(readFileSync(path)));
      parentPort.postMessage({ path, stat: { size, mtimeMs, ino, ctimeMs }, value });
    } catch {
      parentPort.postMessage({ path });
    }
  }
  parentPort.postMessage(null);
});`;

/** Parses `paths` in a worker; what it could not parse is missing from the map. */
export async function parseInWorker(paths: readonly string[]): Promise<Map<string, ParsedToml>> {
  const parsed = new Map<string, ParsedToml>();
  if (paths.length === 0) return parsed;
  const smolToml = createRequire(import.meta.url).resolve("smol-toml");
  const worker = new Worker(workerSource(smolToml), { eval: true });
  try {
    await new Promise<void>((resolve) => {
      worker.on("message", (answer: Answer) => {
        if (answer === null) resolve();
        else if (answer.stat !== undefined && answer.value !== undefined)
          parsed.set(answer.path, { signature: signatureOf(answer.stat), value: answer.value });
      });
      // What it did not answer is parsed on the main thread.
      worker.on("error", () => resolve());
      worker.on("exit", () => resolve());
      worker.postMessage(paths);
    });
  } finally {
    await worker.terminate();
  }
  return parsed;
}
