// Text that travels as one argument of a process (a run's objective): Linux refuses an
// argument past 128 KiB (E2BIG) and the run would never start. Text others wrote (an issue's,
// a pull request's) is cut to the bytes left, whatever its length in characters.

/** What one argument may hold, with room to spare below the kernel's 128 KiB. */
export const ARGUMENT_BYTES = 120 * 1024;

/** `text`, or its start with `note` on a line after it, in at most `maxBytes` of UTF-8. */
export function cutToBytes(text: string, maxBytes: number, note: string): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const room = Math.max(0, maxBytes - Buffer.byteLength(note) - 1);
  // A character cut in two decodes as U+FFFD: dropped, so only whole characters are kept.
  const kept = Buffer.from(text)
    .subarray(0, room)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  return `${kept}\n${note}`;
}
