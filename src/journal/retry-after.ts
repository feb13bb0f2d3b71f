// When an agent said to try again (`retry_after` of its `loop.stop`, in the CLI's words), as an
// instant: "37s", "2 minutes", "1h30m", an ISO time. Words it cannot place ("3pm") give none,
// and the schedule's own delay holds instead, as do instants outside 2000..2200 (unknown,
// never a throw: "99999999999999999999 seconds" is one).
import { parseDuration } from "../util/duration.js";
import { boundedInstant } from "../util/instant.js";

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
    return boundedInstant(Date.parse(text.trim()));
  }
  let span = said.replace(/\band\b/g, " ");
  for (const [word, unit] of UNIT_WORDS) span = span.replace(word, unit);
  const ms = parseDuration(span.replace(/\s+/g, ""));
  const start = boundedInstant(from);
  return ms === undefined || start === undefined ? undefined : boundedInstant(start + ms);
}
