// `autoloop-cron validate` and `autoloop-cron list`: the schedules as files define them.

import { unknownDigestSchedules } from "../scheduler/config/digests.js";
import { runningDaemon, sendControl } from "../scheduler/daemon/control.js";
import { type ListRow, listRows } from "../scheduler/schedules/list-row.js";
import { killSwitchOn, readPauseState } from "../scheduler/schedules/pause-state.js";
import { baseState } from "../scheduler/schedules/schedule-row.js";
import { validateAll } from "../scheduler/schedules/validate.js";
import {
  formatValidationReport,
  validationReportJson,
} from "../scheduler/schedules/validation-report.js";
import { nextFireTime } from "../scheduler/timing/planner.js";
import { flag, table } from "./common.js";
import { configOf, parseCron, printJson } from "./cron-common.js";

const VALIDATE_HELP = `Usage: autoloop-cron validate [--config FILE] [--json]

Checks autoloop-cron.toml and every schedules/*.toml: cron syntax, time zones, presets that
resolve, \`after\` and \`alert\` names, unique path-safe names. Every error names the file,
the field, the value found and what is expected. Exit 0 when valid, 1 when not.
`;

const LIST_HELP = `Usage: autoloop-cron list [--config FILE] [--json]

Lists the schedules with their next fire time, overlap policy and pause state. With a
daemon running, these are the schedules it has in force: a file that no longer validates
keeps its last valid version there (marked *). Without one, the files as they are now.
`;

export async function validateCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "validate",
    help: VALIDATE_HELP,
    options: { json: { type: "boolean" } },
  });
  if (p === undefined) return 0;
  const config = configOf(p);
  const report = validateAll(config);
  const names = new Set(report.schedules.map((s) => s.name));
  const file = config.file ?? "autoloop-cron.toml";
  report.warnings.push(...unknownDigestSchedules(config.digests, names, file));
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
  const fromDaemon = await daemonRows(config.stateDir);
  const pause = readPauseState(config.stateDir);
  const allPaused = pause.all || killSwitchOn(process.env);
  const now = new Date();
  const rows =
    fromDaemon ?? listRows(report.schedules, pause, allPaused, (s) => nextFireTime(s, now));
  const invalidFiles = new Set(report.problems.map((x) => x.file));
  if (flag(p, "json")) {
    printJson({
      source: fromDaemon ? "daemon" : "files",
      schedules: rows,
      invalid: report.problems,
    });
    return 0;
  }
  if (rows.length === 0) {
    process.stdout.write(`No schedules loaded from ${config.schedulesDir}.\n`);
  } else {
    const lines = [["NAME", "CRON", "TIMEZONE", "NEXT FIRE (UTC)", "OVERLAP", "STATE", "TARGET"]];
    for (const r of rows) {
      const state = baseState(r);
      const mark = fromDaemon && invalidFiles.has(r.file) ? "*" : "";
      lines.push([r.name, r.cron, r.timezone, r.next ?? "-", r.overlap, state + mark, r.target]);
    }
    process.stdout.write(`${table(lines)}\n`);
  }
  if (report.problems.length > 0) {
    const files = [...invalidFiles].join(", ");
    const what = fromDaemon
      ? `the daemon keeps running the last valid version of ${files} (marked *)`
      : `no daemon is running, so the schedules that do not validate in ${files} are not listed`;
    process.stderr.write(
      `\n${report.problems.length} problem(s) in schedule files: ${what}; \`autoloop-cron validate\` says what to fix\n`,
    );
  }
  return 0;
}

/** The schedules the running daemon has in force, or undefined without one (or no answer). */
async function daemonRows(stateDir: string): Promise<ListRow[] | undefined> {
  if (runningDaemon(stateDir) === undefined) return undefined;
  const answer = await sendControl(stateDir, { action: "list" }, 5_000);
  return answer.ok ? answer.schedules : undefined;
}
