// Whether runs' harness processes live, for a detection pass: asked at most once per pid and
// pass, and reused by the passes over a few runs that come between full ones.
import { isProcessAlive, liveProcesses } from "../../util/process.js";

/** From how many runs a pass lists the processes once rather than kill(2) each pid. */
const MANY_RUNS = 64;

export class PassLiveness {
  /** Each pid's liveness as the last full pass found it (and later passes added to it). */
  private known = new Map<number, boolean>();

  constructor(private readonly isAlive?: (pid: number) => boolean) {}

  /**
   * The liveness check of a pass over `runs` runs. A full pass asks about every pid afresh.
   * A pass over a few runs (`reuse`) takes each pid's liveness from the last full pass,
   * asking only about pids it did not see: a run that dies right after writing to its
   * journal is then found out by the next full pass, as one that dies silently always is,
   * and busy journals no longer cost a kill(2) per run and batch.
   */
  check(runs: number, reuse: boolean): (pid: number) => boolean {
    if (!reuse) this.known = new Map();
    const known = this.known;
    let ask = this.isAlive;
    return (pid) => {
      let answer = known.get(pid);
      if (answer === undefined) {
        // Listed once, on the first pid asked about: a pass that knows them all lists nothing.
        ask ??= runs > MANY_RUNS ? liveProcesses() : isProcessAlive;
        answer = ask(pid);
        known.set(pid, answer);
      }
      return answer;
    };
  }
}
