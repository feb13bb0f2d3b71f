// `autoloop-cron pause|resume [schedule]`: a file the daemon reads at every fire.
import { pauseSchedule } from "../operator/schedule-actions.js";
import { validateAll } from "../scheduler/schedules/validate.js";
import { configOf, parseCron } from "./cron-common.js";

const help = (verb: string) => `Usage: autoloop-cron ${verb} [schedule] [--config FILE]

${verb === "pause" ? "Pauses" : "Resumes"} one schedule, or every schedule when no name is given. Paused slots are
recorded as skipped (cause paused). Takes effect at the next fire; no restart needed.
AUTOLOOP_CRON_PAUSED=1 in the daemon's environment pauses everything regardless.
`;

async function toggle(argv: string[], paused: boolean): Promise<number> {
  const verb = paused ? "pause" : "resume";
  const p = parseCron(argv, { name: verb, help: help(verb) });
  if (p === undefined) return 0;
  const config = configOf(p);
  const names = () => new Set(validateAll(config).schedules.map((s) => s.name));
  process.stdout.write(
    `${pauseSchedule(config.stateDir, p.positionals[0], paused, (n) => names().has(n))}\n`,
  );
  return 0;
}

export const pauseCommand = (argv: string[]) => toggle(argv, true);
export const resumeCommand = (argv: string[]) => toggle(argv, false);
