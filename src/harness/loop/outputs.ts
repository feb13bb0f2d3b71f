// `[outputs] publish`: files an agent wrote in the run's state dir, copied into the work dir
// when the run completes. The agent itself never needs to write in the project.
import { copyFileSync, lstatSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { FieldValue } from "../../journal/codec.js";

/** Copies each file; returns the `outputs.published` record's fields. */
export function publishOutputs(
  files: readonly string[],
  stateDir: string,
  workDir: string,
): Record<string, FieldValue> {
  const published: string[] = [];
  const missing: string[] = [];
  for (const name of files) {
    const from = join(stateDir, name);
    // Only a regular file the agent wrote: a link could point anywhere.
    const isFile = (() => {
      try {
        return lstatSync(from).isFile();
      } catch {
        return false;
      }
    })();
    if (!isFile) {
      missing.push(name);
      continue;
    }
    const to = join(workDir, name);
    mkdirSync(dirname(to), { recursive: true });
    // A link left where the file goes is replaced, never written through.
    if (isLink(to)) rmSync(to);
    copyFileSync(from, to);
    published.push(name);
  }
  return { files: published.join(","), missing: missing.join(",") };
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
