// The `autoloop-cron validate` output: human text, or a JSON-serializable form for --json.

import { type FieldProblem, formatProblem } from "../../util/errors.js";
import { nextSlotFire } from "../timing/planner.js";
import type { Schedule } from "./schedule-file.js";

export interface ValidationReport {
  /** Schedules that passed every check, in file order; presets resolved. */
  schedules: Schedule[];
  /** Errors: the schedule named by each is not loaded. */
  problems: FieldProblem[];
  /** Worth a look, but the schedule still runs. */
  warnings: FieldProblem[];
  /** The schedules by name, when every one passed (saves building the map again). */
  byName?: Map<string, Schedule>;
}

export interface ValidationReportJson {
  ok: boolean;
  schedules: Array<{
    name: string;
    file: string;
    cron: string;
    timezone: string;
    enabled: boolean;
    /** ISO time of the next fire after `now`, when one was asked for and exists. */
    next: string | null;
  }>;
  problems: Array<FieldProblem & { message: string }>;
  warnings: Array<FieldProblem & { message: string }>;
}

/** The report as plain data; `now` (when given) adds each schedule's next fire time. */
export function validationReportJson(report: ValidationReport, now?: Date): ValidationReportJson {
  const withMessage = (p: FieldProblem) => ({ ...p, message: formatProblem(p) });
  return {
    ok: report.problems.length === 0,
    schedules: report.schedules.map((s) => ({
      name: s.name,
      file: s.file,
      cron: s.cron,
      timezone: s.timezone,
      enabled: s.enabled,
      next: nextOf(s, now),
    })),
    problems: report.problems.map(withMessage),
    warnings: report.warnings.map(withMessage),
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Problems, then warnings, then the schedules that will run, then a one-line summary. */
export function formatValidationReport(report: ValidationReport, now?: Date): string {
  const lines = [
    ...report.problems.map((p) => `error: ${formatProblem(p)}`),
    ...report.warnings.map((w) => `warning: ${formatProblem(w)}`),
  ];
  // Straight from the schedules (no JSON form of 100,000 of them first).
  for (const s of report.schedules) {
    const next = nextOf(s, now);
    const when = s.enabled ? (next === null ? "" : `  next ${next}`) : "  (disabled)";
    lines.push(`ok: ${s.name}  ${s.cron}  ${s.timezone}  (${s.file})${when}`);
  }
  lines.push(
    `${plural(report.schedules.length, "schedule")} valid, ${plural(report.problems.length, "error")}, ${plural(report.warnings.length, "warning")}`,
  );
  return lines.join("\n");
}

/** ISO time of the schedule's next fire after `now`, when one was asked for and exists. */
function nextOf(s: Schedule, now: Date | undefined): string | null {
  return (now && nextSlotFire(s, now.getTime())?.toISOString()) ?? null;
}
