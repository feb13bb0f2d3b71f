// Text a run wrote (questions, task texts, journal lines), made safe to print on a terminal
// or into a plain-text file an operator `cat`s: control characters are shown escaped, so no
// escape sequence reaches the terminal (OSC 52 clipboard, OSC 0 title, SGR 8 hidden text,
// NUL), and the length is capped with a marker that says what was left out.

// C0, DEL, C1 (0x9b is a one-byte CSI), the Unicode line separators, and the bidirectional
// overrides and isolates that reorder what the reader sees.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_KEEPING_LINES =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** What a terminal prints of run text by default: enough for any question a person reads. */
export const PRINTABLE_MAX_CHARS = 8192;

export interface PrintableOptions {
  /** Keep "\n" and "\t" (a multi-line body); by default they are escaped too (one line). */
  multiline?: boolean;
  /** Characters kept before `… (N more bytes)`; `Infinity` keeps all. */
  maxChars?: number;
}

const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** `text` with control characters shown as `\uXXXX` and cut at `maxChars`, the cut marked. */
export function printable(text: string, options: PrintableOptions = {}): string {
  const max = options.maxChars ?? PRINTABLE_MAX_CHARS;
  const kept = text.length > max ? text.slice(0, max) : text;
  const safe = kept.replace(options.multiline ? CONTROL_KEEPING_LINES : CONTROL, escaped);
  if (kept.length === text.length) return safe;
  const more = Buffer.byteLength(text) - Buffer.byteLength(kept);
  return `${safe}… (${more} more bytes)`;
}
