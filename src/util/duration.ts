// Human durations as written in config files: "90s", "20m", "2h", "1d", "1h30m", "500ms".

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;

/** Parses a duration; returns milliseconds, or undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const src = text.trim();
  if (src === "") return undefined;
  if (src === "0") return 0;
  PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let m = PART.exec(src); m !== null; m = PART.exec(src)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    consumed = PART.lastIndex;
  }
  return consumed === src.length && consumed > 0 ? Math.round(total) : undefined;
}

/** Formats milliseconds compactly: 5400000 → "1h30m", 1500 → "1.5s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))}s`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return parts.slice(0, 2).join("");
}

export const DURATION_HINT = 'a duration such as "90s", "20m", "2h", "1d" or "1h30m"';
