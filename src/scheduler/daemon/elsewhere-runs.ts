// Runs that other hosts sharing the state dir launched, by schedule, for the slot policy: the
// heartbeats folder is read at most once a second, however many slots fall due in it.
import { type RunElsewhere, runsElsewhere } from "../launch/run-liveness.js";

/** How long one look at the folder serves: far below the three intervals a death takes. */
const FRESH_MS = 1000;

export class ElsewhereRuns {
  private lookedAt = Number.NEGATIVE_INFINITY;
  private bySchedule = new Map<string, RunElsewhere[]>();

  constructor(
    private readonly stateDir: string,
    /** The daemon's own runs: a look reads only the others' files. */
    private readonly ours: (runId: string) => boolean,
  ) {}

  /** The schedule's live runs on other hosts (heartbeat mtimes are wall-clock times). */
  of(schedule: string): readonly RunElsewhere[] {
    const now = Date.now();
    if (now - this.lookedAt >= FRESH_MS || now < this.lookedAt) {
      this.lookedAt = now;
      this.bySchedule = new Map();
      for (const run of runsElsewhere(this.stateDir, { now: () => now, ours: this.ours })) {
        const runs = this.bySchedule.get(run.schedule);
        if (runs === undefined) this.bySchedule.set(run.schedule, [run]);
        else runs.push(run);
      }
    }
    return this.bySchedule.get(schedule) ?? [];
  }
}
