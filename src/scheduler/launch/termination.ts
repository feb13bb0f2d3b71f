// Ends a run's whole process group: SIGTERM first, SIGKILL once the grace period is over.
import { isGroupAlive, signalGroup } from "../../util/process.js";
import type { KillCause } from "../ledger/run-outcome.js";

export const DEFAULT_KILL_GRACE_MS = 10_000;

export interface GroupTerminator {
  /** Starts the SIGTERM → grace → SIGKILL sequence; the first cause is the one remembered. */
  terminate(cause: KillCause): void;
  /** Kills leftovers of a group whose leader already exited (same sequence, no cause). */
  reap(): void;
  readonly cause: KillCause | undefined;
  /** Clears the pending SIGKILL timer unless group members are still alive to receive it. */
  dispose(): void;
}

export interface TerminationDeps {
  signalGroup: (pgid: number, signal: NodeJS.Signals) => boolean;
  isGroupAlive: (pgid: number) => boolean;
}

const defaultDeps: TerminationDeps = { signalGroup, isGroupAlive };

export function groupTerminator(
  pgid: number,
  graceMs: number,
  deps: TerminationDeps = defaultDeps,
): GroupTerminator {
  let cause: KillCause | undefined;
  let killTimer: NodeJS.Timeout | undefined;

  const start = (): void => {
    if (killTimer !== undefined) return;
    deps.signalGroup(pgid, "SIGTERM");
    // The timer is kept referenced: the SIGKILL must happen even if nothing else is pending.
    killTimer = setTimeout(() => {
      if (deps.isGroupAlive(pgid)) deps.signalGroup(pgid, "SIGKILL");
    }, graceMs);
  };

  return {
    terminate(next) {
      cause ??= next;
      start();
    },
    reap() {
      if (deps.isGroupAlive(pgid)) start();
    },
    get cause() {
      return cause;
    },
    dispose() {
      if (killTimer !== undefined && !deps.isGroupAlive(pgid)) clearTimeout(killTimer);
    },
  };
}
