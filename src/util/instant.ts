// Times read from files a run can write (its journal, its agent's words) or that sit in its
// reach (the ledger): one outside the years 2000..2200, or no number at all, is unknown and
// never a throw (`new Date(1e23).toISOString()` is a RangeError).

/** The first instant (epoch ms) taken as a time: 2000-01-01T00:00:00Z. */
export const EARLIEST_INSTANT = Date.UTC(2000, 0, 1);
/** The first instant past the ones taken as a time: 2200-01-01T00:00:00Z. */
export const LATEST_INSTANT = Date.UTC(2200, 0, 1);

/** `ms` when it is an instant in 2000..2200; else undefined (unknown). */
export function boundedInstant(ms: number): number | undefined {
  return Number.isFinite(ms) && ms >= EARLIEST_INSTANT && ms < LATEST_INSTANT ? ms : undefined;
}

/** The instant a written time names (ISO text), bounded as `boundedInstant`; else undefined. */
export function parseInstant(text: string | undefined): number | undefined {
  return typeof text === "string" ? boundedInstant(Date.parse(text)) : undefined;
}
