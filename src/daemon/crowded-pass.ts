// A crowded second: room made for its firing pass ahead of time, and its account (how long
// the pass held the event loop, and the longest the loop was held in the second after it:
// queued slots' log lines, spawns), measured with monitorEventLoopDelay and logged once, as
// "slots decided", when that second is over.
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Logger } from "pino";
import { youngGeneration } from "./young-generation.js";

/** Passes that decide at least this many slots are watched and logged. */
const CROWDED_PASS = 100;
const AFTERMATH_MS = 1000;

const round = (ms: number): number => Math.round(ms * 10) / 10;

export function watchCrowdedPass(log: Logger, slots: number, passMs: number): void {
  if (slots < CROWDED_PASS) return;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  setTimeout(() => {
    delay.disable();
    const eventLoopMaxDelayMs = round(delay.max / 1e6);
    log.info({ slots, durationMs: round(passMs), eventLoopMaxDelayMs }, "slots decided");
  }, AFTERMATH_MS).unref();
}

/** Young-generation bytes a pass allocates per slot, with room to spare (~1.2 KB measured). */
const PASS_BYTES_PER_SLOT = 2048;
/** Where the garbage goes: kept reachable for a moment, so no compiler drops the allocations. */
const ballast: unknown[] = [undefined];

function youngRoom(): { size: number; available: number } | undefined {
  const young = youngGeneration();
  return young && { size: young.space_size, available: young.space_available_size };
}

/**
 * Called ~50 ms before a crowded instant. When the young generation has less room left than
 * the pass will allocate, short-lived garbage fills it now, so that its scavenge runs here
 * (4-13 ms measured, with the young generation's growth) rather than halfway through deciding
 * a thousand slots (3-5 ms of pause there). Returns whether a scavenge was brought forward.
 */
export function makeRoomForPass(slots: number): boolean {
  if (slots < CROWDED_PASS) return false;
  const before = youngRoom();
  if (before === undefined) return false;
  // `size` holds both semi-spaces: a scavenge frees at most one, less what survives it.
  const need = Math.min(slots * PASS_BYTES_PER_SLOT, before.size / 4);
  if (before.available >= need) return false;
  try {
    // 8 KiB arrays, looked at every 512 KiB; the scavenge comes within `available` bytes.
    for (let bytes = 8192; bytes <= before.size; bytes += 8192) {
      ballast[0] = new Array(1024);
      if (bytes % (512 * 1024) === 0 && (youngRoom()?.available ?? 0) > before.available)
        return true;
    }
    return false;
  } finally {
    ballast[0] = undefined;
  }
}
