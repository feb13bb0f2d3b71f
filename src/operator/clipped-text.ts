// Agent-written text cut to what a page can show: its first lines in view, the rest folded
// away, and nothing past a hard byte cap (the raw journal has all of it).

export interface ClippedText {
  /** Shown at once: the first lines, themselves cut short when one line is very long. */
  head: string;
  /** What follows the head, up to the cap: behind a <details>. */
  rest: string;
  /** Bytes past the cap, not on the page at all ("truncated, see raw"). */
  omittedBytes: number;
}

export interface ClipLimits {
  lines: number;
  /** The head's own ceiling: one line of a megabyte is still one line. */
  headChars: number;
  /** Head and rest together, in UTF-8 bytes. */
  bytes: number;
}

/** `text` in at most `maxBytes` UTF-8 bytes, never ending in half a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const cut = Buffer.from(text).subarray(0, maxBytes).toString("utf8");
  // A character cut in two decodes as U+FFFD at the very end.
  return cut.endsWith("\ufffd") && !text.startsWith(cut) ? cut.slice(0, -1) : cut;
}

export function clipText(text: string, limits: ClipLimits): ClippedText {
  const kept = utf8Prefix(text, limits.bytes);
  const omittedBytes = Buffer.byteLength(text) - Buffer.byteLength(kept);
  let end = 0;
  for (let n = 0; n < limits.lines && end < kept.length; n++) {
    const nl = kept.indexOf("\n", end);
    end = nl < 0 ? kept.length : nl + 1;
  }
  end = Math.min(end, limits.headChars);
  // A surrogate pair is not split between head and rest.
  if (end > 0 && end < kept.length && /[\ud800-\udbff]/.test(kept[end - 1]!)) end -= 1;
  return { head: kept.slice(0, end), rest: kept.slice(end), omittedBytes };
}
