// Which process the operator's guide and interrupt wake (the CLI, the status page, MCP): for a
// run the daemon launched, only the harness inside the process group the daemon's ledger
// recorded for that run id, never a pid from the run's own files; for any other run, the
// registry's pid once /proc shows it is the run's harness (docs/formats.md, "Control files").
import { type RunRef, registryTarget } from "../harness/control/operator-requests.js";
import { isHarnessLoop, noWake, type WakeTarget } from "../harness/control/wake.js";
import { isRunProcess } from "../scheduler/launch/identity.js";
import { isTerminal, type LedgerEvent } from "../scheduler/ledger/events.js";
import type { RunLedger } from "../scheduler/ledger/ledger.js";
import { childrenOf, readProcStat } from "../util/proc-stat.js";

/** The harness of a run the ledger knows: the loop running in the group the daemon started. */
function launchedHarness(runId: string, events: readonly LedgerEvent[]): WakeTarget {
  const started = events.findLast((e) => e.event === "started");
  if (started?.event !== "started") return noWake(`the daemon has not started ${runId}'s process`);
  const group = started.pgid;
  if (!isRunProcess(group, runId, started.startTime))
    return noWake(`process group ${group}, which the daemon started for ${runId}, is gone`);
  // The group's leader is the run's wrapper (`sh`); the harness is the program it runs.
  const harness = [group, ...childrenOf(group)].find(
    (pid) => readProcStat(pid)?.pgrp === group && isHarnessLoop(pid),
  );
  return harness === undefined
    ? noWake(`no autoloop harness runs in ${runId}'s process group ${group}`)
    : { kind: "pid", pid: harness };
}

/** What a guide or interrupt of `ref` may wake. */
export function wakeTarget(ledger: RunLedger, ref: RunRef): WakeTarget {
  const replay = ledger.replay(ref.runId);
  if (replay === undefined) return registryTarget(ref);
  if (isTerminal(replay.summary.status)) return noWake(`the ledger says ${ref.runId} ended`);
  return launchedHarness(ref.runId, replay.events);
}
