// `preflight` where no daemon runs (Kubernetes CronJobs, systemd timers running `fire`): the
// monitor makes the daemon's checks itself, so an expired login still pages before its slot.
import type { Logger } from "pino";
import { type DaemonInfo, runningDaemon } from "../scheduler/daemon/control.js";
import { Preflights } from "../scheduler/preflight/preflights.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import { nextSlotFire } from "../scheduler/timing/planner.js";

export interface PreflightChecksDeps {
  stateDir: string;
  log: Pick<Logger, "info" | "warn">;
  /** The environment a run gets (the monitor's, without the alert channels' secrets). */
  env(): NodeJS.ProcessEnv;
  now(): number;
  /** The daemon serving the state dir, if one is alive: it makes the checks then. */
  daemon?: () => DaemonInfo | undefined;
}

export class PreflightChecks {
  /** Undefined while a daemon checks: read afresh after it, as it wrote the file meanwhile. */
  private preflights: Preflights | undefined;
  private daemonPid: number | undefined;

  constructor(private readonly deps: PreflightChecksDeps) {}

  /**
   * Starts the checks due now, unless a live daemon serves the state dir: one writer of
   * preflight.json at a time. Settles when the checks it started have ended, with how many.
   */
  tick(schedules: Iterable<Schedule>): Promise<number> {
    const { deps } = this;
    const daemon = (deps.daemon ?? (() => runningDaemon(deps.stateDir)))();
    if (daemon !== undefined) {
      if (this.daemonPid !== daemon.pid)
        deps.log.info({ pid: daemon.pid }, "preflight: left to the daemon serving the state dir");
      this.daemonPid = daemon.pid;
      this.preflights = undefined;
      return Promise.resolve(0);
    }
    if (this.daemonPid !== undefined)
      deps.log.info({ pid: this.daemonPid }, "preflight: the daemon is gone; the monitor checks");
    this.daemonPid = undefined;
    this.preflights ??= new Preflights(deps);
    const now = deps.now();
    const byName = new Map([...schedules].map((s) => [s.name, s]));
    return this.preflights.tick(byName.values(), (name) => {
      const s = byName.get(name);
      return s && nextSlotFire(s, now);
    });
  }
}
