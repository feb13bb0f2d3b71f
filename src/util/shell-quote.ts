// Quoting for POSIX shells, for the few places that write shell text (the event tool
// wrapper, commands printed for a human to paste). Processes are never launched through it.

/** Leaves plain words as they are; anything else is single-quoted, every byte literal. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
