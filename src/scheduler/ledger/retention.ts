// Retention (`[retention]`): what the state dir keeps of ended runs. A run's ledger events go
// with its slot's day once that day is older than `runs`; output logs, stale heartbeats and
// history files once their last write is older than `output` and `history`. A run not yet
// ended keeps everything (its heartbeat is fresh). The index and the claimed slots keep their
// one short line per run; a slot's claim file (which only guards against a second claimer at
// about the slot's time) goes with its events.
import { readdirSync, rmdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { CronConfig } from "../config/config.js";
import { CLAIMS_DIR } from "./claim-files.js";

const DAY = 86_400_000;
const DATE_FOLDER = /^\d{4}-\d{2}-\d{2}$/;

export interface Pruned {
  /** Ledger event logs removed. */
  runs: number;
  /** Output logs and exit files removed. */
  outputs: number;
  histories: number;
}

/** Removes what `[retention]` no longer keeps; `running` says which run ids have not ended. */
export function pruneState(
  stateDir: string,
  retention: CronConfig["retention"],
  running: (runId: string) => boolean,
  now = Date.now(),
): Pruned {
  const pruned: Pruned = { runs: 0, outputs: 0, histories: 0 };
  const runsDir = join(stateDir, "runs");
  for (const day of entries(runsDir).filter((name) => DATE_FOLDER.test(name))) {
    // A day goes once all of it is older than the cutoff.
    if (Date.parse(`${day}T00:00:00Z`) + DAY > now - retention.runsMs) continue;
    const folder = join(runsDir, day);
    for (const name of entries(folder))
      if (!running(name.replace(/\.jsonl$/, "")) && remove(join(folder, name))) pruned.runs++;
    try {
      rmdirSync(folder);
    } catch {
      // Not empty: a run that has not ended keeps its day.
    }
  }
  const outputDir = join(stateDir, "output");
  for (const name of entries(outputDir)) {
    if (running(name.replace(/\.(log|exit)$/, ""))) continue;
    if (olderThan(join(outputDir, name), retention.outputMs, now)) pruned.outputs++;
  }
  // A heartbeat left by a host that died with its run (its launcher removes the others).
  const beatsDir = join(stateDir, "heartbeats");
  for (const name of entries(beatsDir))
    if (olderThan(join(beatsDir, name), retention.outputMs, now)) pruned.outputs++;
  const historyDir = join(stateDir, "history");
  for (const name of entries(historyDir))
    if (olderThan(join(historyDir, name), retention.historyMs, now)) pruned.histories++;
  // Webhook bodies kept for their runs (and retries) go with the output logs.
  const hooksDir = join(stateDir, "hooks");
  for (const schedule of entries(hooksDir))
    for (const name of entries(join(hooksDir, schedule)))
      if (olderThan(join(hooksDir, schedule, name), retention.outputMs, now)) pruned.outputs++;
  const claimsDir = join(stateDir, CLAIMS_DIR);
  for (const schedule of entries(claimsDir))
    for (const name of entries(join(claimsDir, schedule)))
      olderThan(join(claimsDir, schedule, name), retention.runsMs, now);
  return pruned;
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Removes `file` when its last write is older than `keepMs`; true when it did. */
function olderThan(file: string, keepMs: number, now: number): boolean {
  try {
    return now - statSync(file).mtimeMs > keepMs && remove(file);
  } catch {
    return false; // gone meanwhile
  }
}

function remove(file: string): boolean {
  try {
    rmSync(file);
    return true;
  } catch {
    return false;
  }
}

/** Prunes at most every 6 hours (the first call at once), logging what went; never throws. */
export function everySixHours(
  config: Pick<CronConfig, "stateDir" | "retention">,
  ledger: { isPending(runId: string): boolean },
  log: { info(o: object, msg: string): void; warn(o: object, msg: string): void },
): (now: number) => void {
  const running = (runId: string) => ledger.isPending(runId);
  let last = Number.NEGATIVE_INFINITY;
  return (now) => {
    if (now - last < 6 * 3_600_000) return;
    last = now;
    try {
      const pruned = pruneState(config.stateDir, config.retention, running, now);
      if (pruned.runs + pruned.outputs + pruned.histories > 0)
        log.info(pruned, "retention: removed what [retention] no longer keeps");
    } catch (err) {
      log.warn({ err }, "retention: pruning failed; tried again in 6 hours");
    }
  };
}
