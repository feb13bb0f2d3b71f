// Wall-clock time in an IANA zone: instant → wall clock, and wall clock → instant(s), naming
// the DST gap (a wall time that never happens) and overlap (one that happens twice).

/** A wall-clock time encoded as if it were UTC milliseconds ("02:30 local" = 02:30Z). */
export type WallMs = number;

export type WallInstant =
  | { kind: "exact"; at: number }
  /** Fall-back: the wall time happens twice; `transition` is when the clock went back. */
  | { kind: "overlap"; earlier: number; later: number; transition: number }
  /** Spring-forward: the wall time never happens; `gapEnd` is the first instant after it. */
  | { kind: "gap"; gapEnd: number };

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function offsetFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    // "longOffset" renders one "GMT+02:00" token: faster than formatToParts.
    f = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when `timeZone` is an IANA zone name this runtime knows. */
export function isValidTimeZone(timeZone: string): boolean {
  if (timeZone.trim() === "") return false;
  try {
    offsetFormatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

const OFFSET = /GMT(?:([+-])(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;

/** The zone's offset from UTC at `instant`, in ms (wall = instant + offset). */
export function zoneOffset(instant: number, timeZone: string): number {
  if (timeZone === "UTC" || timeZone === "Etc/UTC") return 0;
  const m = OFFSET.exec(offsetFormatter(timeZone).format(instant));
  if (m === null || m[1] === undefined) return 0;
  const abs = Number(m[2]) * 3_600_000 + Number(m[3]) * 60_000 + Number(m[4] ?? 0) * 1000;
  return m[1] === "-" ? -abs : abs;
}

export function wallClockOf(instant: number, timeZone: string): WallMs {
  return instant + zoneOffset(instant, timeZone);
}

/** The instant(s) at which the zone's clocks show `wall`. */
export function instantsOfWall(wall: WallMs, timeZone: string): WallInstant {
  // Real zones change offset at most once within a day, so the offsets a day either side
  // are the only two candidates.
  const before = zoneOffset(wall - DAY_MS, timeZone);
  const after = zoneOffset(wall + DAY_MS, timeZone);
  // The instants the two offsets give, kept when the zone really has that offset then.
  // (Without arrays: planning 100,000 schedules asks this 100,000 times.)
  const byBefore = wall - before;
  const byAfter = wall - after;
  const beforeHolds = zoneOffset(byBefore, timeZone) === before;
  const afterHolds = byAfter !== byBefore && zoneOffset(byAfter, timeZone) === after;
  if (beforeHolds && afterHolds) {
    const earlier = Math.min(byBefore, byAfter);
    const later = Math.max(byBefore, byAfter);
    return {
      kind: "overlap",
      earlier,
      later,
      transition: firstWithOffset(earlier, later, after, timeZone),
    };
  }
  if (beforeHolds) return { kind: "exact", at: byBefore };
  if (afterHolds) return { kind: "exact", at: byAfter };
  if (after > before) {
    return { kind: "gap", gapEnd: firstWithOffset(wall - after, wall - before, after, timeZone) };
  }
  return { kind: "exact", at: wall - before }; // unreachable for real zones; stay total
}

/** Binary search, to the second, for the first instant in (lo, hi] with `offset`. */
function firstWithOffset(lo: number, hi: number, offset: number, timeZone: string): number {
  let a = Math.floor(lo / 1000);
  let b = Math.ceil(hi / 1000);
  while (b - a > 1) {
    const mid = Math.floor((a + b) / 2);
    if (zoneOffset(mid * 1000, timeZone) === offset) b = mid;
    else a = mid;
  }
  return b * 1000;
}
