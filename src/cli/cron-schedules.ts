// `autoloop-cron validate` and `autoloop-cron list`: the schedules as files define them.

import { scheduleTarget } from "../operator/overview.js";
import { isPaused, killSwitchOn, readPauseState } from "../schedules/pause-state.js";
import { validateAll } from "../schedules/validate.js";
import { formatValidationReport, validationReportJson } from "../schedules/validation-report.js";
import { nextFireTime } from "../timing/planner.js";
import { flag, table } from "./common.js";
import { configOf, parseCron, printJson } from "./cron-common.js";

const VALIDATE_HELP = `Usage: autoloop-cron validate [--config FILE] [--json]

Checks autoloop-cron.toml and every schedules/*.toml: cron syntax, time zones, presets that
resolve, \`after\` and \`alert\` names, unique path-safe names. Every error names the file,
the field, the value found and what is expected. Exit 0 when valid, 1 when not.
`;

const LIST_HELP = `Usage: autoloop-cron list [--config FILE] [--json]

Lists the loaded schedules with their next fire time, overlap policy and pause state.
`;

export async function validateCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "validate",
    help: VALIDATE_HELP,
    options: { json: { type: "boolean" } },
  });
  if (p === undefined) return 0;
  const report = validateAll(configOf(p));
  const now = new Date();
  if (flag(p, "json")) printJson(validationReportJson(report, now));
  else process.stdout.write(`${formatValidationReport(report, now)}\n`);
  return report.problems.length === 0 ? 0 : 1;
}

export async function listCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "list",
    help: LIST_HELP,
    options: { json: { type: "boolean" } },
  });
  if (p === undefined) return 0;
  const config = configOf(p);
  const report = validateAll(config);
  const pause = readPauseState(config.stateDir);
  const allPaused = pause.all || killSwitchOn(process.env);
  const now = new Date();
  const rows = report.schedules.map((s) => ({
    name: s.name,
    cron: s.cron,
    timezone: s.timezone,
    kind: s.kind,
    target: scheduleTarget(s),
    next: s.enabled ? (nextFireTime(s, now)?.toISOString() ?? null) : null,
    overlap: s.overlap,
    enabled: s.enabled,
    paused: allPaused || isPaused(pause, s.name),
    file: s.file,
  }));
  if (flag(p, "json")) {
    printJson({ schedules: rows, invalid: report.problems });
  } else if (rows.length === 0) {
    process.stdout.write(`No schedules loaded from ${config.schedulesDir}.\n`);
  } else {
    const lines = [["NAME", "CRON", "TIMEZONE", "NEXT FIRE (UTC)", "OVERLAP", "STATE", "TARGET"]];
    for (const r of rows) {
      const state = !r.enabled ? "disabled" : r.paused ? "paused" : "active";
      lines.push([r.name, r.cron, r.timezone, r.next ?? "-", r.overlap, state, r.target]);
    }
    process.stdout.write(`${table(lines)}\n`);
  }
  if (report.problems.length > 0 && !flag(p, "json")) {
    process.stderr.write(
      `\n${report.problems.length} problem(s) in schedule files; run \`autoloop-cron validate\`\n`,
    );
  }
  return 0;
}
