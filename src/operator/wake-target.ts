// Which process the operator's guide and interrupt wake (the CLI, the status page, MCP): for a
// run the daemon launched, only the harness inside the process group the daemon's ledger
// recorded for that run id (the wrapper's child), never a pid from the run's own files; for
// any other run, the registry's pid once /proc shows it is the run's harness (docs/formats.md,
// "Control files").

import { constants } from "node:os";
import { type RunRef, registryTarget } from "../harness/control/operator-requests.js";
import { noWake, pidTarget, type WakeTarget } from "../harness/control/wake.js";
import { isRunProcess } from "../scheduler/launch/identity.js";
import { isTerminal, type LedgerEvent } from "../scheduler/ledger/events.js";
import type { RunLedger } from "../scheduler/ledger/ledger.js";
import { catchesSignal, childrenOf, readProcStat } from "../util/proc-stat.js";

/**
 * The harness under the group's leader (the wrapper `sh`): its child in the group, whatever
 * its command line (a config's `harness` may be any program). A child that would die of
 * SIGUSR1 (a wrapper script that runs the harness without `exec`) is passed over for its own
 * child, so the wake never kills a run.
 */
function groupHarness(group: number): number | undefined {
  let level = childrenOf(group).filter((pid) => readProcStat(pid)?.pgrp === group);
  for (let depth = 0; depth < 4 && level.length > 0; depth++) {
    const woken = level.find((pid) => catchesSignal(pid, constants.signals.SIGUSR1));
    if (woken !== undefined) return woken;
    level = level.flatMap((pid) => childrenOf(pid).filter((c) => readProcStat(c)?.pgrp === group));
  }
  return undefined;
}

/** The harness of a run the ledger knows: the loop running in the group the daemon started. */
function launchedHarness(runId: string, events: readonly LedgerEvent[]): WakeTarget {
  const started = events.findLast((e) => e.event === "started");
  if (started?.event !== "started") return noWake(`the daemon has not started ${runId}'s process`);
  const group = started.pgid;
  if (!isRunProcess(group, runId, started.startTime))
    return noWake(`process group ${group}, which the daemon started for ${runId}, is gone`);
  // The leader passed the check `stop` makes: the daemon started it, so its harness is ours to
  // wake, whatever the command line (no registry pid is ever taken for it).
  const harness = groupHarness(group);
  return harness === undefined
    ? noWake(`no harness that takes SIGUSR1 runs in ${runId}'s process group ${group}`)
    : pidTarget(harness);
}

/** What a guide or interrupt of `ref` may wake. */
export function wakeTarget(ledger: RunLedger, ref: RunRef): WakeTarget {
  const replay = ledger.replay(ref.runId);
  if (replay === undefined) return registryTarget(ref);
  if (isTerminal(replay.summary.status)) return noWake(`the ledger says ${ref.runId} ended`);
  return launchedHarness(ref.runId, replay.events);
}
