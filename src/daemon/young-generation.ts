// The daemon's young generation held at the size it reached in start-up.
//
// V8 doubles its young generation (both semi-spaces) when enough objects survive scavenges,
// up to 2 x 16 MiB. A 100,000-schedule load makes it grow from 2 x 8 MiB, and the scavenge
// that grows it commits 16 MiB of fresh pages inside its own pause: 10-23 ms on a 2-core VM,
// where its neighbours take 2-5 ms. That was the load's longest hold of the event loop.
// Held at 2 x 8 MiB, scavenges come twice as often and each copies half as much; the load
// takes as long, its holds are shorter (median of 10 starts 14.1 ms against 16.3 ms), and the
// daemon rests on 16 MiB less.
import { getHeapSpaceStatistics, type HeapSpaceInfo, setFlagsFromString } from "node:v8";

/** Both semi-spaces together (as `space_size` counts them): 2 x 8 MiB. */
export const YOUNG_GENERATION_HELD_AT = 16 * 1024 * 1024;

/** V8's figures for its young generation now, or undefined when V8 does not give them. */
export function youngGeneration(): HeapSpaceInfo | undefined {
  return getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
}

/** Bytes of both semi-spaces now, or undefined when V8 does not say. */
export function youngGenerationSize(): number | undefined {
  return youngGeneration()?.space_size;
}

let held = false;

/**
 * Stops the young generation from growing once it holds YOUNG_GENERATION_HELD_AT (a smaller
 * one still grows to it). True once held. Safe to call before every load.
 */
export function holdYoungGeneration(): boolean {
  if (held) return true;
  const size = youngGenerationSize();
  if (size === undefined || size < YOUNG_GENERATION_HELD_AT) return false;
  // Read by V8 each time it would grow the young generation: a factor of 1 grows it no more.
  setFlagsFromString("--semi-space-growth-factor=1");
  held = true;
  return true;
}
