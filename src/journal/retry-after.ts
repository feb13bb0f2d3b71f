// When an agent said to try again (`retry_after` of its `loop.stop`, in the CLI's words), as an
// instant: "37s", "2 minutes", "1h30m", an ISO time. Words it cannot place ("3pm") give none,
// and the schedule's own delay holds instead.
import { parseDuration } from "../util/duration.js";

const UNIT_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/\b(milliseconds?|msecs?)\b/g, "ms"],
  [/\b(seconds?|secs?)\b/g, "s"],
  [/\b(minutes?|mins?)\b/g, "m"],
  [/\b(hours?|hrs?)\b/g, "h"],
  [/\b(days?)\b/g, "d"],
];

/** The instant (epoch ms) `text` names, counted from `from` when it is a span; else undefined. */
export function retryAfterInstant(text: string, from: number): number | undefined {
  const said = text
    .trim()
    .toLowerCase()
    .replace(/[.,;]$/, "");
  if (/^\d{4}-\d{2}-\d{2}t/.test(said)) {
    const at = Date.parse(text.trim());
    return Number.isNaN(at) ? undefined : at;
  }
  let span = said.replace(/\band\b/g, " ");
  for (const [word, unit] of UNIT_WORDS) span = span.replace(word, unit);
  const ms = parseDuration(span.replace(/\s+/g, ""));
  return ms === undefined || Number.isNaN(from) ? undefined : from + ms;
}
