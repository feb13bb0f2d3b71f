// A preset's `[acceptance]` table (the public autoloop's keys): the commands a claimed
// completion must pass (`verify_cmds`, then `verify_cmd`), the criteria bound to a check
// ("text :: command"), and how long each may take. Read from the operator's preset only.
import { parseDuration } from "../../util/duration.js";

/** A criterion with the command that checks it. */
export interface CriterionCheck {
  text: string;
  check: string;
}

/** The public autoloop's list values: a TOML array, or its flattened comma-separated text. */
const strings = (value: unknown): string[] => {
  if (Array.isArray(value))
    return value.filter((v): v is string => typeof v === "string" && v.trim() !== "");
  return typeof value === "string"
    ? value
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
};

const tableOf = (acceptance: unknown): Record<string, unknown> =>
  typeof acceptance === "object" && acceptance !== null
    ? (acceptance as Record<string, unknown>)
    : {};

/** The acceptance gate's commands, in the public order: `verify_cmds`, then `verify_cmd`. */
export function gateCommands(acceptance: unknown): string[] {
  const a = tableOf(acceptance);
  const cmds = strings(a.verify_cmds);
  if (typeof a.verify_cmd === "string" && a.verify_cmd.trim() !== "")
    cmds.push(a.verify_cmd.trim());
  return cmds;
}

/** `criteria` entries with a check after " :: " (the others only state intent). */
export function criterionChecks(acceptance: unknown): CriterionCheck[] {
  return strings(tableOf(acceptance).criteria).flatMap((line) => {
    const at = line.indexOf("::");
    const check = at < 0 ? "" : line.slice(at + 2).trim();
    return check === "" ? [] : [{ text: line.slice(0, at).trim(), check }];
  });
}

/** `timeout` (milliseconds or a duration such as "10m") per command; 5 minutes unless set. */
export function acceptanceTimeoutMs(acceptance: unknown): number {
  const t = tableOf(acceptance).timeout;
  if (typeof t === "number" && t > 0) return t;
  const parsed = typeof t === "string" ? parseDuration(t) : undefined;
  return parsed !== undefined && parsed > 0 ? parsed : 300_000;
}
