// `autoloop-cron export systemd` as a pure function: schedules in, .service/.timer pairs out.
import type { Schedule } from "../schedules/schedule-file.js";
import { ONCALENDAR_TARGET } from "./oncalendar.js";
import { refusalMessage } from "./selection.js";
import {
  monitorUnit,
  type SystemdExportOptions,
  scheduleUnits,
  unitName,
} from "./systemd-units.js";
import type { ExportFile, ExportResult } from "./write-out.js";

export function systemdExport(schedules: Schedule[], options: SystemdExportOptions): ExportResult {
  const files: ExportFile[] = [];
  const refusals: string[] = [];
  const warnings: string[] = [];
  for (const s of schedules) {
    const units = scheduleUnits(s, options);
    if (units.kind === "refused") refusals.push(refusalMessage(s, ONCALENDAR_TARGET, units.reason));
    else files.push(...units.value);
    if (underPrivateTmp(s.projectDir))
      warnings.push(
        `schedule "${s.name}": project_dir ${s.projectDir} is under /tmp or /var/tmp, which the units' PrivateTmp=yes gives each service empty: move the project, or remove PrivateTmp=yes from ${unitName(s, "service")}`,
      );
    if (s.overlap !== "skip") {
      warnings.push(
        `schedule "${s.name}": overlap = "${s.overlap}" becomes "skip" (a timer never starts a service that still runs)`,
      );
    }
  }
  if (files.length > 0) files.push(monitorUnit(options, schedules));
  if (files.length > 0 && underPrivateTmp(options.configDir))
    warnings.push(
      `the config folder ${options.configDir} (every unit's WorkingDirectory) is under /tmp or /var/tmp, which PrivateTmp=yes gives each service empty: the units will not find it; move it first`,
    );
  return refusals.length > 0 ? { kind: "refused", refusals } : { kind: "ok", files, warnings };
}

/** A path PrivateTmp=yes hides from the service (it gets its own empty /tmp and /var/tmp). */
function underPrivateTmp(path: string): boolean {
  return /^\/(var\/)?tmp(\/|$)/.test(path);
}
