// `autoloop-cron pause|resume [schedule]`: a file the daemon reads at every fire.
import { isPaused, killSwitchOn, setPaused } from "../schedules/pause-state.js";
import { validateAll } from "../schedules/validate.js";
import { UserError } from "../util/errors.js";
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
  const [name] = p.positionals;
  if (name !== undefined && !validateAll(config).schedules.some((s) => s.name === name)) {
    throw new UserError(
      `autoloop-cron ${verb}: unknown schedule ${JSON.stringify(name)}; \`autoloop-cron list\` shows the loaded ones`,
    );
  }
  const state = setPaused(config.stateDir, name, paused);
  if (name === undefined)
    process.stdout.write(paused ? "all schedules paused\n" : "all schedules resumed\n");
  else
    process.stdout.write(
      `${name} ${isPaused(state, name) ? "paused" : "resumed"}${state.all ? " (note: all schedules are paused)" : ""}\n`,
    );
  if (!paused && killSwitchOn(process.env))
    process.stderr.write("note: AUTOLOOP_CRON_PAUSED is set in this environment\n");
  return 0;
}

export const pauseCommand = (argv: string[]) => toggle(argv, true);
export const resumeCommand = (argv: string[]) => toggle(argv, false);
