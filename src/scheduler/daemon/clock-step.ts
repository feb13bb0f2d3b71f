// The wall clock stepped back (NTP, a VM restored, a hand): the fire queue has planned every
// schedule again from the new time, and the slots it passes again are decided here, as Vixie
// cron does: a schedule that fires more often than the step (every minute, after a step of an
// hour) runs them again; one that fires less often (daily) does not run a slot twice. A step
// of three hours or more is a new time: every schedule runs as the clock says.
import type { Logger } from "pino";
import { formatDuration } from "../../util/duration.js";
import type { RunLedger } from "../ledger/ledger.js";
import type { Schedule } from "../schedules/schedule-file.js";
import { nextFireTime } from "../timing/planner.js";

const NEW_TIME_MS = 3 * 3_600_000;

/** Whether `s` fires more often than every `ms` around `at`. */
function firesMoreOftenThan(s: Schedule, at: Date, ms: number): boolean {
  const a = nextFireTime(s, at);
  const b = a && nextFireTime(s, a);
  return b !== undefined && a !== undefined && b.getTime() - a.getTime() < ms;
}

/** A clock jump the fire queue noticed: forward ones are the missed slots' business. */
export function clockJumped(
  ledger: RunLedger,
  schedules: ReadonlyMap<string, Schedule>,
  event: { ms: number; at: Date },
  log: Pick<Logger, "warn">,
): void {
  if (event.ms > 0) log.warn({ jumpMs: event.ms }, "the wall clock jumped forward");
  else clockSteppedBack(ledger, schedules, event.at, -event.ms, log);
}

function clockSteppedBack(
  ledger: RunLedger,
  schedules: ReadonlyMap<string, Schedule>,
  at: Date,
  stepMs: number,
  log: Pick<Logger, "warn">,
): void {
  const until = new Date(at.getTime() + stepMs);
  ledger.clockSteppedBack(at, until, (name) => {
    const s = schedules.get(name);
    return s !== undefined && (stepMs >= NEW_TIME_MS || firesMoreOftenThan(s, at, stepMs));
  });
  log.warn(
    { jumpMs: -stepMs, from: until.toISOString(), to: at.toISOString() },
    `the wall clock stepped back ${formatDuration(stepMs)}: every schedule is planned again from ${at.toISOString()}; ${stepMs >= NEW_TIME_MS ? "every schedule runs its slots again" : "schedules that fire more often than that run their slots again, the others do not run a slot twice"}`,
  );
}
