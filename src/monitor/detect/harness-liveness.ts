// Whether a run's harness still runs, from what the run cannot forge where there is such a
// thing: a run the daemon launched by the process group its ledger recorded (the identity
// check `stop` makes), or on another host by its launcher's heartbeat (run-liveness.ts), never
// by the registry beside its journal; a run started by hand by the
// registry's pid once /proc shows it is a harness running a loop here (docs/alerts.md, "A
// run's end, and who wrote it"). A run's end counts once its liveness is not `true`, so no
// line a run writes may turn its live harness into "dead" or "unknown".
import { hostname } from "node:os";
import { isHarnessLoop } from "../../harness/control/wake.js";
import { readHeartbeat } from "../../scheduler/launch/heartbeat-file.js";
import { thisHostId } from "../../scheduler/launch/host-id.js";
import { isRunProcess } from "../../scheduler/launch/identity.js";
import { remoteLiveness } from "../../scheduler/launch/run-liveness.js";
import type { LedgerEvent, RunSummary } from "../../scheduler/ledger/events.js";

/** The process the daemon launched a run in, as its ledger says. */
export interface LaunchedProcess {
  /** The ledger's run (a chain's, for its steps): the id the process carries. */
  runId: string;
  /** The group's leader (the wrapper `sh`); the ledger's pid. */
  pid: number;
  startTime?: string;
  host?: string;
}

/** The run's process by its ledger: the summary's pid, with the `started` event's identity. */
export function launchedProcess(
  summary: RunSummary,
  events: readonly LedgerEvent[],
): LaunchedProcess | undefined {
  const { runId, pid } = summary;
  if (pid === undefined) return undefined;
  const started = events.findLast((e) => e.event === "started");
  if (started?.event !== "started" || started.pid !== pid) return { runId, pid };
  const { startTime, host } = started;
  return { runId, pid, ...(startTime && { startTime }), ...(host && { host }) };
}

export interface ProcessChecks {
  /** The pid is still the run's launched process (identity.ts). */
  isRunProcess: (pid: number, runId: string, startTime?: string) => boolean;
  /** The pid is a harness running a loop (wake.ts). */
  isHarnessLoop: (pid: number) => boolean;
  /** This host's id (host-id.ts): a heartbeat written elsewhere decides a run's liveness. */
  here?: () => string;
}

/** Where the launchers' heartbeats are, and the pass's instant to judge their age by. */
export interface HeartbeatsAt {
  stateDir: string;
  now: number;
}

/** A run's liveness (undefined: cannot be told from here) and the pid it was judged by. */
export interface Liveness {
  alive?: boolean;
  pid?: number;
}

export class HarnessLiveness {
  /** Per run, the pid /proc showed to be its process here: judged by it while it lives. */
  private readonly proven = new Map<string, number>();
  /** Runs whose heartbeat says they run here: their heartbeat is not read again. */
  private readonly local = new Set<string>();

  constructor(private readonly checks: ProcessChecks = { isRunProcess, isHarnessLoop }) {}

  /** The verdict of the heartbeat of `launched` (the ledger's process) when it runs elsewhere. */
  private elsewhere(runId: string, launched: LaunchedProcess, at: HeartbeatsAt | undefined) {
    if (at === undefined || this.local.has(runId)) return undefined;
    const here = (this.checks.here ?? thisHostId)();
    const read = readHeartbeat(at.stateDir, launched.runId, launched.pid);
    if (read?.heartbeat.host === here) this.local.add(runId);
    return remoteLiveness(read, here, at.now);
  }

  /** A run the daemon launched (or its chain's step): the ledger's process, checked as `stop` does. */
  launched(
    runId: string,
    process: LaunchedProcess | undefined,
    alive: (pid: number) => boolean,
    heartbeats?: HeartbeatsAt,
  ): Liveness {
    if (process === undefined) return {};
    const { pid } = process;
    // A chain's step beats as its chain: the process the ledger launched.
    const remote = this.elsewhere(runId, process, heartbeats);
    if (remote !== undefined) return { alive: remote.alive, pid };
    // Without a heartbeat (an older launcher's run), the launcher's own host name (not the
    // run's registry): a pod's process says nothing here.
    if (process.host !== undefined && process.host !== hostname()) return {};
    if (!alive(pid)) return { alive: false, pid };
    if (this.proven.get(runId) === pid) return { alive: true, pid };
    if (!this.checks.isRunProcess(pid, process.runId, process.startTime))
      return { alive: false, pid };
    this.proven.set(runId, pid);
    return { alive: true, pid };
  }

  /**
   * A run started by hand: the registry's pid, once it is a harness running a loop here. A run
   * whose harness was seen here stays judged here: a later registry line naming another pid
   * or host (the agent can write one) neither hides it nor makes it unknown.
   */
  handStarted(
    runId: string,
    entry: { pid?: number; host?: unknown } | undefined,
    alive: (pid: number) => boolean,
  ): Liveness {
    const proven = this.proven.get(runId);
    if (proven !== undefined && alive(proven)) return { alive: true, pid: proven };
    const pid = entry?.pid;
    if (pid !== undefined && pid !== proven && alive(pid) && this.checks.isHarnessLoop(pid)) {
      this.proven.set(runId, pid); // a resumed run's new harness, or the first one seen
      return { alive: true, pid };
    }
    if (proven !== undefined) return { alive: false, pid: proven };
    // Another host's pid (another pod) says nothing here: the stall threshold decides.
    if (typeof entry?.host === "string" && entry.host !== hostname()) return {};
    return pid === undefined ? {} : { alive: false, pid };
  }

  forget(runId: string): void {
    this.proven.delete(runId);
    this.local.delete(runId);
  }
}
