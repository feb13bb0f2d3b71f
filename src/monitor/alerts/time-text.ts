// How alert times read: in the schedule's zone and in UTC, plus how long ago, relative to a
// `now` argument so renders are reproducible.

/** `2026-11-21 03:00:00 Europe/Berlin`: a wall-clock time in a named zone. */
export function wallClock(date: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  }).formatToParts(date);
  const get = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((p) => p.type === type)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")}:${get("second")} ${timeZone}`;
}

function isValidZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** "5 min ago", "3 h ago", "in 2 min" (clock skew), "just now". */
export function relativeTime(thenMs: number, nowMs: number): string {
  const diff = nowMs - thenMs;
  const abs = Math.abs(diff);
  let amount: string;
  if (abs < 60_000) return "just now";
  if (abs < 120 * 60_000) amount = `${Math.floor(abs / 60_000)} min`;
  else if (abs < 48 * 3_600_000) amount = `${Math.floor(abs / 3_600_000)} h`;
  else amount = `${Math.floor(abs / 86_400_000)} d`;
  return diff >= 0 ? `${amount} ago` : `in ${amount}`;
}

/**
 * `2026-11-21 03:00:00 Europe/Berlin (2026-11-21 02:00:00 UTC, 5 min ago)`. The zone is
 * named, not abbreviated: abbreviations depend on the ICU build and are ambiguous. An
 * unknown zone falls back to UTC alone rather than failing the alert.
 */
export function formatAlertTime(iso: string, timeZone: string, now: number): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const utc = wallClock(date, "UTC");
  const ago = relativeTime(date.getTime(), now);
  if (timeZone === "UTC" || timeZone === "Etc/UTC" || !isValidZone(timeZone)) {
    return `${utc} (${ago})`;
  }
  return `${wallClock(date, timeZone)} (${utc}, ${ago})`;
}
