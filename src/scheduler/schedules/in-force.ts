// The daemon's record of which file holds each schedule name (`schedules-in-force.json`), so
// that `validate` blames the same file as the running daemon when two files share a name.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicAsync } from "../../util/atomic-write.js";
import { eachItem, runSliced } from "../../util/steps.js";
import type { CronConfig } from "../config/config.js";
import type { Schedule } from "./schedule-file.js";

/** Which file holds each schedule name in the running daemon: `<state>/schedules-in-force.json`. */
export function inForcePath(config: CronConfig): string {
  return join(config.stateDir, "schedules-in-force.json");
}

/** Which file holds each name (only `get` is asked). */
export type InForce = Pick<ReadonlyMap<string, string>, "get">;

/**
 * The daemon's last record of which file holds each name; empty when there is none. The
 * record lists each file's names (`{"file": ["name", …]}`); a record from before that, one
 * file per name (`{"name": "file"}`), is read too.
 */
export function readInForce(config: CronConfig): ReadonlyMap<string, string> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(inForcePath(config), "utf8"));
  } catch {
    return new Map();
  }
  const byName = new Map<string, string>();
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return byName;
  const record = raw as Record<string, unknown>;
  // for-in, not Object.entries: no array of 100,000 pairs for a record of the old form.
  for (const key in record) {
    const value = record[key];
    if (typeof value === "string") byName.set(key, value);
    else if (Array.isArray(value))
      for (const name of value) if (typeof name === "string") byName.set(name, key);
  }
  return byName;
}

/**
 * Records which file holds each name (`inForcePath`): each file once with its names, built in
 * slices and written off the event loop (one pair per name made a larger file, slow for
 * `validate` to read).
 */
export async function writeInForce(
  config: CronConfig,
  schedules: ReadonlyMap<string, Schedule>,
): Promise<void> {
  const namesByFile = new Map<string, string[]>();
  await runSliced(
    eachItem(schedules.values(), (s) => {
      const names = namesByFile.get(s.file);
      if (names === undefined) namesByFile.set(s.file, [s.name]);
      else names.push(s.name);
    }),
  );
  // One file's names joined at a time: one stringify of them all (and its buffer) would hold
  // the loop.
  const parts: string[] = [];
  await runSliced(
    eachItem(
      namesByFile,
      ([file, names]) => {
        parts.push(
          `${parts.length === 0 ? "{" : ","}${JSON.stringify(file)}:${JSON.stringify(names)}`,
        );
      },
      1,
    ),
  );
  parts.push(parts.length === 0 ? "{}\n" : "}\n");
  await writeFileAtomicAsync(inForcePath(config), parts);
}
