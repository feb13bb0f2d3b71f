// `autoloop-cron status`: what needs a human right now, from the files under state_dir.
import { readStatus, renderStatus } from "../monitor/status.js";
import { registerScheduleSecrets } from "../scheduler/schedules/env-file-secrets.js";
import { UserError } from "../util/errors.js";
import { flag } from "./common.js";
import { configOf, parseCron, printJson } from "./cron-common.js";

const HELP = `Usage: autoloop-cron status [--json]

Shows only the exceptions: runs stuck at their completion gate, failed, timed out,
stalled or crashed (the monitor's firing alerts), open incidents, alerts waiting in
the outbox or given up on, and schedule files that do not validate. When nothing is
wrong it prints one "All clear" line. It reads files only, with or without a daemon.

Below that, "Spend": each schedule with a budget or with runs this month, what it
spent today and this month (days and months of its time zone) against its budget,
"SPENT" when the budget is exhausted (its slots are skipped until the period turns),
and whether the budget can hold when some runs' cost is unknown. Spend never
changes the exit code: an exhausted budget pages through the monitor.

Exit codes (for scripts and health checks):
  0  nothing needs a human (acknowledged incidents and acked or silenced alerts
     are listed but do not count)
  1  something needs a human: a firing alert nobody acked, an open incident, an
     alert undeliverable in the last 24 h, or an invalid schedule file
  2  usage or config error

Examples:
  autoloop-cron status
  autoloop-cron status --json | jq '.firing[].summary'
  autoloop-cron status --json | jq '.spend[] | {schedule, today: .today.costUsd}'
  autoloop-cron status >/dev/null || echo "autoloop needs you"
`;

export async function statusCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, { name: "status", help: HELP, options: { json: { type: "boolean" } } });
  if (p === undefined) return 0;
  if (p.positionals.length > 0)
    throw new UserError(`autoloop-cron status: unexpected ${JSON.stringify(p.positionals[0])}`);
  const config = configOf(p);
  // The report quotes runs (alert titles, questions): the agents' keys are hidden again.
  registerScheduleSecrets(config);
  const report = readStatus(config);
  if (flag(p, "json")) printJson(report);
  else process.stdout.write(renderStatus(report));
  return report.needsHuman ? 1 : 0;
}
