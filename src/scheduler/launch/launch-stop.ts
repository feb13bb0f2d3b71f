// A run's stop before its process exists: while the daemon fetches its remote or checks out a
// pull request's head, a stop kills git and nothing is spawned; a stop while it is being
// spawned reaches the process as soon as it has one.
import type { KillCause } from "../ledger/run-outcome.js";
import type { RunHandle } from "./launcher.js";

/** Who stopped a launch before its spawn: an operator, its timeout, or the daemon's shutdown. */
export type LaunchStop = KillCause | { by: "shutdown" };

export class PendingLaunch {
  private readonly controller = new AbortController();
  private phase: "fetching" | "spawning" | "spawned" = "fetching";
  private handle: RunHandle | undefined;
  /** An operator's stop that came while the process was being spawned. */
  private stopWhenSpawned: string | undefined;

  /** Aborted by a stop before the spawn: git, given it, is killed. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The stop that came before the spawn, if one did. */
  get stoppedBy(): LaunchStop | undefined {
    return this.signal.aborted ? (this.signal.reason as LaunchStop) : undefined;
  }

  /** An operator's stop (`autoloop-cron stop`), at whatever stage the launch is. */
  stop(reason: string): void {
    if (this.phase === "fetching") this.controller.abort({ by: "operator", reason });
    else if (this.handle !== undefined) this.handle.stop(reason);
    else this.stopWhenSpawned ??= reason;
  }

  /** The schedule's timeout passed before the spawn. */
  expire(): void {
    if (this.phase === "fetching") this.controller.abort({ by: "timeout" });
  }

  /**
   * The daemon shuts down: a launch still fetching never starts. One being spawned is left
   * to the shutdown, which stops or detaches it as any running run.
   */
  interrupt(): void {
    if (this.phase === "fetching") this.controller.abort({ by: "shutdown" });
  }

  /** The fetch is over: false when a stop came first (then nothing may be spawned). */
  spawning(): boolean {
    if (this.signal.aborted) return false;
    this.phase = "spawning";
    return true;
  }

  spawned(handle: RunHandle): void {
    this.phase = "spawned";
    this.handle = handle;
    if (this.stopWhenSpawned !== undefined) handle.stop(this.stopWhenSpawned);
  }
}
