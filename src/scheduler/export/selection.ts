// What an export covers: every enabled schedule of a configuration without problems; and how
// a schedule that cannot be exported is reported.

import { formatProblem, UserError } from "../../util/errors.js";
import type { CronConfig } from "../config/config.js";
import { findConfig } from "../config/config.js";
import type { Schedule } from "../schedules/schedule-file.js";
import { validateAll } from "../schedules/validate.js";

export interface ExportSelection {
  config: CronConfig & { file: string };
  schedules: Schedule[];
  /** Names of disabled schedules, left out. */
  disabled: string[];
}

/**
 * Loads the config and its schedules. Refuses on any problem: an export deploys the whole
 * set, and one that silently left out a broken schedule would look complete.
 */
export function selectSchedules(configPath: string | undefined, cwd: string): ExportSelection {
  const config = findConfig(configPath, cwd);
  // findConfig refuses to go on without a file; this only narrows the type.
  if (config.file === undefined) throw new UserError("export needs a config file");
  const report = validateAll(config);
  if (report.problems.length > 0) {
    const list = report.problems.map(formatProblem).join("\n");
    throw new UserError(`cannot export while schedule files have problems:\n${list}`);
  }
  return {
    config: { ...config, file: config.file },
    schedules: report.schedules.filter((s) => s.enabled),
    disabled: report.schedules.filter((s) => !s.enabled).map((s) => s.name),
  };
}

/** Names the file, the schedule, its expression, the target and why. */
export function refusalMessage(s: Schedule, target: string, reason: string): string {
  return `${s.file}: schedule "${s.name}": cron "${s.cron}" cannot be exported to ${target}: ${reason}`;
}

/** All refusals at once, so one run shows everything to fix; exit code 2 like other input errors. */
export function refusalError(refusals: string[]): UserError {
  const hint = "change these schedules, or set enabled = false on them to export the others";
  return new UserError(`nothing exported:\n${refusals.join("\n")}\n(${hint})`);
}
