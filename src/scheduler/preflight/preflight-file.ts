// `state_dir/preflight.json`: what each schedule's latest credentials check found, written by
// the daemon before the schedule's slot (`preflight`) and read by the monitor (auth_expiring).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";
import { writeFileAtomic } from "../../util/atomic-write.js";

const resultSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("passed") }),
  /** The CLI says its login is gone or expired. */
  z.object({ kind: z.literal("refused"), detail: z.string() }),
  /** The check could not tell (not installed, no answer in time, another error). */
  z.object({ kind: z.literal("unknown"), detail: z.string() }),
]);
export type CheckResult = z.output<typeof resultSchema>;

const scheduleCheckSchema = z.object({
  /** The fire time the check was made for (ISO). */
  slot: z.string(),
  checkedAt: z.string(),
  agents: z.array(z.object({ agent: z.string(), command: z.string(), result: resultSchema })),
});
export type ScheduleCheck = z.output<typeof scheduleCheckSchema>;

/** By schedule name. */
export type PreflightState = Record<string, ScheduleCheck>;

export const preflightFile = (stateDir: string) => join(stateDir, "preflight.json");

/** The checks on disk; entries that do not read as checks are left out. */
export function readPreflightState(stateDir: string): PreflightState {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(preflightFile(stateDir), "utf8"));
  } catch {
    return {};
  }
  if (typeof raw !== "object" || raw === null) return {};
  const state: PreflightState = {};
  for (const [name, entry] of Object.entries(raw)) {
    const parsed = scheduleCheckSchema.safeParse(entry);
    if (parsed.success) state[name] = parsed.data;
  }
  return state;
}

export function writePreflightState(stateDir: string, state: PreflightState): void {
  writeFileAtomic(preflightFile(stateDir), `${JSON.stringify(state, null, 2)}\n`);
}
