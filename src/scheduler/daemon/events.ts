// What a running daemon tells, as typed events: metrics, the in-process monitor and
// tests listen here rather than reaching into the daemon.
import { EventEmitter } from "node:events";
import type { Logger } from "pino";
import type { FieldProblem } from "../../util/errors.js";
import type { SkipCause, Trigger } from "../ledger/events.js";
import type { RunOutcome } from "../ledger/run-outcome.js";

export interface DaemonEvents {
  fire: [{ schedule: string; slot: Date; runId: string; trigger: Trigger; latenessMs: number }];
  skipped: [{ schedule: string; slot: Date; runId: string; cause: SkipCause; detail: string }];
  queued: [{ schedule: string; slot: Date; why: string }];
  finished: [{ schedule: string; runId: string; outcome: RunOutcome }];
  /** A run that ended while no daemon watched it, found at start. */
  recovered: [{ schedule: string; runId: string; outcome: RunOutcome }];
  missed: [{ schedule: string; slots: Date[]; reason: "daemon_down" | "late_wakeup" }];
  invalid: [{ problems: FieldProblem[]; keptPrevious: string[] }];
  loaded: [{ count: number }];
  tick: [{ at: Date }];
}

/**
 * Tells each listener (metrics, the in-process monitor, tests) in turn; one that throws is
 * logged and the others still hear of it, so no listener can stop a launch or a reload.
 */
export abstract class DaemonEmitter extends EventEmitter<DaemonEvents> {
  protected abstract get log(): Logger;

  override emit<K extends keyof DaemonEvents>(event: K, ...args: DaemonEvents[K]): boolean {
    // A thousand slots decided in one pass: no copy of an empty listener list for each.
    if (this.listenerCount(event) === 0) return false;
    const listeners = this.rawListeners(event as never) as Array<(...a: unknown[]) => void>;
    for (const listener of listeners) {
      try {
        listener.apply(this, args);
      } catch (err) {
        this.log.error({ err, event }, "a daemon event listener failed; carrying on");
      }
    }
    return listeners.length > 0;
  }
}
