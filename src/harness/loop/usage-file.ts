// `AUTOLOOP_USAGE_FILE`: where a `command` backend may write what one call used, as a JSON
// object with the `backend.usage` field names (the public autoloop's convention).
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type AgentUsage, usageFromFile } from "../agents/usage.js";
import type { RunPaths } from "../run-paths.js";

/** Longest usage file read (it holds a handful of numbers). */
const MAX_USAGE_FILE_BYTES = 64 * 1024;

function usageFile(paths: RunPaths): string {
  return join(paths.runDir, "usage.json");
}

/** The file's path for the next call, with what an earlier call left removed. */
export function clearedUsageFile(paths: RunPaths): string {
  const file = usageFile(paths);
  rmSync(file, { force: true });
  return file;
}

/** What the call wrote there; undefined when it wrote nothing readable. */
export function readUsageFile(paths: RunPaths): AgentUsage | undefined {
  try {
    const text = readFileSync(usageFile(paths), "utf8");
    if (text.length > MAX_USAGE_FILE_BYTES) return undefined;
    return usageFromFile(JSON.parse(text));
  } catch {
    return undefined;
  }
}
