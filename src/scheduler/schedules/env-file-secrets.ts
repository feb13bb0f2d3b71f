// The values of the schedules' env files (their agents' keys), registered with the process
// redactor: a run can write them into files the daemon and the operator's tools show (its
// tasks, memory, journal), so every place that renders run text hides them again.
import { envFileValues } from "../../util/env-file.js";
import { processRedactor, type Redactor } from "../../util/secrets.js";
import type { CronConfig } from "../config/config.js";
import type { Schedule } from "./schedule-file.js";
import { loadScheduleSet } from "./schedule-set.js";

/** Reads each schedule's env files once and adds their values to `redactor`. */
export function registerEnvFileSecrets(
  schedules: Iterable<Schedule>,
  redactor: Redactor = processRedactor,
): void {
  const files = new Set<string>();
  for (const s of schedules) if ("envFiles" in s) for (const f of s.envFiles) files.add(f);
  for (const file of files) for (const value of envFileValues(file)) redactor.add(value);
}

/**
 * For the operator's tools in their own process (`status`, MCP): the schedules' env-file
 * values, registered before any run text is shown. Never throws: a schedule folder it cannot
 * read leaves the journal's own redaction, and the tool says what it can.
 */
export function registerScheduleSecrets(config: CronConfig): void {
  try {
    registerEnvFileSecrets(loadScheduleSet(config).schedules.values());
  } catch {
    // The tool reports the broken schedule files itself.
  }
}
