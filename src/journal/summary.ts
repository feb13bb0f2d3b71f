// One readable line per journal record, for `autoloop inspect` and alert bodies: the big
// fields (prompt, output) shortened so a screenful says what happened.
import { fieldText, type JournalRecord } from "./codec.js";

const BIG_FIELDS = new Set(["prompt", "output", "output_tail"]);

function flat(text: string, max: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** `key=value` pairs of a system record, or an agent record's payload. */
export function recordSummary(r: JournalRecord, max = 160): string {
  if (r.shape === "agent") return flat(r.payload, max);
  const parts = Object.keys(r.fields).map(
    (k) => `${k}=${flat(fieldText(r, k), BIG_FIELDS.has(k) ? 60 : 80)}`,
  );
  return flat(parts.join(" "), max);
}

/** `2026-11-21T21:32:05.796Z  #2  task.gate  blocked_topic=task.complete open_tasks=task-1`. */
export function recordLine(r: JournalRecord, max = 200): string {
  const iteration = r.iteration ? `#${r.iteration}` : "-";
  return `${r.ts}  ${iteration}  ${r.topic}  ${recordSummary(r, max)}`;
}
