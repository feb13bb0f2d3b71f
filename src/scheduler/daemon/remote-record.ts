// When schedules load, the URL of each remote they fetch from or deliver to, read from the
// project and recorded in the schedule's own repository (`forge/own-repo.ts`) the first time,
// before any run: what a run writes into the project's config later is never followed.
import { join } from "node:path";
import type { Logger } from "pino";
import { openOwnRepo } from "../../forge/own-repo.js";
import { runFetchOf } from "../config/fetch.js";
import type { Schedule } from "../schedules/schedule-file.js";

/** The remotes a schedule's daemon-side git reaches: its fetch's and its deliveries'. Pure. */
export function remotesOf(schedule: Schedule): string[] {
  const names = [
    runFetchOf(schedule)?.remote,
    schedule.deliver?.pullRequest?.remote,
    schedule.deliver?.review?.remote,
  ];
  return [...new Set(names.filter((n): n is string => n !== undefined))];
}

/** Records the remotes' URLs of `schedules` (a few at a time); a moved one is logged. */
export async function recordRemotes(
  schedules: Iterable<Schedule>,
  stateDir: string,
  log: Pick<Logger, "info" | "warn">,
): Promise<void> {
  const work = [...schedules].flatMap((s) => remotesOf(s).map((remote) => ({ s, remote })));
  const gitDir = join(stateDir, "git");
  const next = async (): Promise<void> => {
    const item = work.shift();
    if (item === undefined) return;
    const { s, remote } = item;
    const own = await openOwnRepo({ gitDir, schedule: s.name, projectDir: s.projectDir, remote });
    if (own.kind === "failed") log.warn({ schedule: s.name }, own.detail);
    else if (own.notice !== undefined) log.warn({ schedule: s.name }, own.notice);
    return next();
  };
  await Promise.all([next(), next(), next(), next()]);
}
