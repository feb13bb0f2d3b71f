// The daemon's record of which file holds each schedule name (`schedules-in-force.json`), so
// that `validate` blames the same file as the running daemon when two files share a name.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CronConfig } from "../config/config.js";
import { writeFileAtomicAsync } from "../util/atomic-write.js";
import { NameMap } from "../util/name-map.js";
import { eachItem, runSliced } from "../util/steps.js";
import type { Schedule } from "./schedule-file.js";

/** Which file holds each schedule name in the running daemon: `<state>/schedules-in-force.json`. */
export function inForcePath(config: CronConfig): string {
  return join(config.stateDir, "schedules-in-force.json");
}

/** Which file holds each name (only `get` is asked). */
export type InForce = Pick<ReadonlyMap<string, string>, "get">;

/** The daemon's last record of which file holds each name; empty when there is none. */
export function readInForce(config: CronConfig): ReadonlyMap<string, string> {
  try {
    const raw = JSON.parse(readFileSync(inForcePath(config), "utf8")) as unknown;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return new Map();
    return new NameMap(
      Object.entries(raw as Record<string, unknown>).filter(
        (e): e is [string, string] => typeof e[1] === "string",
      ),
    );
  } catch {
    return new Map();
  }
}

/**
 * Records which file holds each name (`inForcePath`), built in slices and written off the
 * event loop: 100,000 names are ~4 MB of JSON.
 */
export async function writeInForce(
  config: CronConfig,
  schedules: ReadonlyMap<string, Schedule>,
): Promise<void> {
  // Joined a thousand entries at a time: one 4 MB join (and its buffer) held the loop ~50 ms.
  const parts: string[] = [];
  let part: string[] = [];
  const flush = () => {
    parts.push(`${parts.length === 0 ? "{" : ","}${part.join(",")}`);
    part = [];
  };
  await runSliced(
    eachItem(schedules, ([name, s]) => {
      part.push(`${JSON.stringify(name)}:${JSON.stringify(s.file)}`);
      if (part.length === 1000) flush();
    }),
  );
  if (part.length > 0 || parts.length === 0) flush();
  parts.push("}\n");
  await writeFileAtomicAsync(inForcePath(config), parts);
}
