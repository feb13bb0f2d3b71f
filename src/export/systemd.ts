// `autoloop-cron export systemd` as a pure function: schedules in, .service/.timer pairs out.
import type { Schedule } from "../schedules/schedule-file.js";
import { ONCALENDAR_TARGET } from "./oncalendar.js";
import { refusalMessage } from "./selection.js";
import { monitorUnit, type SystemdExportOptions, scheduleUnits } from "./systemd-units.js";
import type { ExportFile, ExportResult } from "./write-out.js";

export function systemdExport(schedules: Schedule[], options: SystemdExportOptions): ExportResult {
  const files: ExportFile[] = [];
  const refusals: string[] = [];
  const warnings: string[] = [];
  for (const s of schedules) {
    const units = scheduleUnits(s, options);
    if (units.kind === "refused") refusals.push(refusalMessage(s, ONCALENDAR_TARGET, units.reason));
    else files.push(...units.value);
    if (s.overlap !== "skip") {
      warnings.push(
        `schedule "${s.name}": overlap = "${s.overlap}" becomes "skip" (a timer never starts a service that still runs)`,
      );
    }
  }
  if (files.length > 0) files.push(monitorUnit(options));
  return refusals.length > 0 ? { kind: "refused", refusals } : { kind: "ok", files, warnings };
}
