// Whether a run's terminal record is its end: the harness writes `loop.complete`/`loop.stop`
// as its last act and exits, so a terminal record while the harness still runs is not (yet)
// the run's end; one that a harness outlives by far was written by someone else (a stuck
// agent can append any line to its journal) and is reported.
import type { RunFacts } from "./detectors.js";
import { type RunState, timestampMs } from "./run-state.js";

/** How long a harness may outlive its terminal record before the record is called not its. */
const FORGED_END_GRACE_MS = 10_000;

export class RunEnds {
  /** Runs whose terminal record agrees with their process (it has ended, or is unknown). */
  private readonly confirmedRuns = new Set<string>();
  /** Runs whose terminal record was reported while their harness still ran. */
  private readonly reported = new Set<string>();

  constructor(private readonly onUnconfirmed?: (run: RunState, pid: number) => void) {}

  /** The run's end was confirmed before: nothing more to look at. */
  confirmed(run: RunState): boolean {
    return run.terminal !== undefined && this.confirmedRuns.has(run.run);
  }

  /**
   * The facts of a run once its liveness is known (`facts.alive`, from `pid`): an end with a
   * live harness is marked unconfirmed (and reported once when late), else confirmed for good.
   */
  judge(run: RunState, facts: RunFacts, pid: number | undefined): RunFacts {
    if (run.terminal === undefined) return facts;
    if (facts.alive === true && pid !== undefined) {
      facts.unconfirmedEnd = true;
      // An end dated in the future (or not at all) is no reason to wait.
      const at = timestampMs(run.terminal.at);
      const late = !Number.isFinite(at) || Date.now() - at >= FORGED_END_GRACE_MS;
      if (late && !this.reported.has(run.run)) {
        this.reported.add(run.run);
        this.onUnconfirmed?.(run, pid);
      }
      return facts;
    }
    this.confirmedRuns.add(run.run);
    delete facts.alive;
    return facts;
  }

  forget(runId: string): void {
    this.confirmedRuns.delete(runId);
    this.reported.delete(runId);
  }
}
