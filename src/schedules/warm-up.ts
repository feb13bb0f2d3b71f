// The daemon's first load of a big folder would run its code cold: V8 compiles each function
// on first use, and the first files' steps held the event loop 20-40 ms (TOML parse, zod's
// checks, the schedules, their next fire times). Before /healthz listens, a small file of
// every kind of schedule takes the same path, so that the load's first turns find it compiled.
import type { CronConfig } from "../config/config.js";
import { nextFireTime } from "../timing/planner.js";
import { parseScheduleFile, scheduleDefaults } from "./schedule-file.js";

/** Tables of each kind: 120 in all, more than a piece's most (100), so the TOML is cut. */
const EACH_KIND = 40;

function sampleFile(): string {
  const tables: string[] = [];
  for (let i = 0; i < EACH_KIND; i++) {
    const at = `cron = "${i % 60} ${i % 24} ${1 + (i % 28)} ${1 + (i % 12)} *"`;
    tables.push(
      `[[schedule]]\nname = "command-${i}"\n${at}\nkind = "command"\ncommand = ["true", "${i}"]\njitter = "1m"\nenv = { A = "b" }\n`,
      `[[schedule]]\nname = "preset-${i}"\n${at}\npreset = "p"\nobjective = "o"\ntimezone = "Europe/Berlin"\n[schedule.monitor]\nstall_after = "1h"\n`,
      `[[schedule]]\nname = "chain-${i}"\n${at}\nkind = "chain"\nchain = "c"\nobjective = "o"\ntimeout = "1h"\ncatch_up = "all"\nafter = ["command-${i}"]\n`,
    );
  }
  return tables.join("\n");
}

/**
 * Loads a sample file of every kind the way the daemon loads a big folder, and plans each
 * schedule's next fire time; nothing is kept. Returns how many schedules the sample gave.
 */
export function warmUpScheduleLoad(config: CronConfig): number {
  const parsed = parseScheduleFile("(warm-up)", sampleFile(), scheduleDefaults(config), {
    fileDir: config.dir,
    configDir: config.dir,
    tomlInPieces: true,
  });
  const now = new Date();
  for (const schedule of parsed.schedules) nextFireTime(schedule, now);
  return parsed.problems.length === 0 ? parsed.schedules.length : 0;
}
