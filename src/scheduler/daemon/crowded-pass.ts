// A crowded second's account: how long its firing pass held the event loop, and the longest
// the loop was held in the second after it (spawns), measured with monitorEventLoopDelay and
// logged once, as "slots decided", when that second is over.
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Logger } from "pino";

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
