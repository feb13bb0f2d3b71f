// Stopping a run: through the daemon that owns it, or, with no daemon, by signalling the
// process group the ledger names once it is proven to be that run's harness. One code path
// for the CLI (`autoloop-cron stop`), the MCP server and the status page.
import { join } from "node:path";
import pino from "pino";
import { type Control, controlFiles, runningDaemon } from "../scheduler/daemon/control.js";
import { isRunProcess, isSameProcessAlive } from "../scheduler/launch/identity.js";
import { runLiveness } from "../scheduler/launch/run-liveness.js";
import { RUN_KILL_GRACE_MS } from "../scheduler/launch/schedule-spec.js";
import { RunLedger } from "../scheduler/ledger/ledger.js";
import { isScheduledRunId } from "../scheduler/ledger/scheduled-run-id.js";
import { UserError } from "../util/errors.js";
import { isGroupAlive, signalGroup } from "../util/process.js";

/** The ledger opened for reading outside the daemon; its log lines go to stderr. */
export function openLedgerAt(stateDir: string): RunLedger {
  return RunLedger.open(stateDir, { logger: pino({ level: "warn" }, pino.destination(2)) });
}

/** `id` when it is a run id, else an error naming it and the usage. */
export function checkRunId(id: string | undefined, usage: string): string {
  if (id === undefined) throw new UserError(`missing <run-id>; usage: ${usage}`);
  if (!isScheduledRunId(id)) throw new UserError(`${JSON.stringify(id)} is not a valid run id`);
  return id;
}

/** Asks a daemon to stop one of its runs; resolves with the operator's line. */
export async function stopDaemonRun(
  control: Control,
  runId: string,
  reason: string,
): Promise<string> {
  const response = await control({ action: "stop", runId, reason });
  if (!response.ok) throw new UserError(response.error, 1);
  return response.message;
}

/** Stops a running run; resolves with the operator's line. */
export async function stopRun(stateDir: string, runId: string, reason: string): Promise<string> {
  if (runningDaemon(stateDir)) return stopDaemonRun(controlFiles(stateDir), runId, reason);
  const ledger = openLedgerAt(stateDir);
  const entry = ledger.pending().find((e) => e.runId === runId);
  const where =
    entry?.pid === undefined
      ? undefined
      : runLiveness(stateDir, { runId, pid: entry.pid, startTime: entry.startTime });
  if (where?.where === "elsewhere") {
    const state = where.alive
      ? "its launcher there still beats, and its processes cannot be signalled from here"
      : `its launcher stopped beating at ${new Date(where.beatAt).toISOString()}: that host or its launcher is down`;
    throw new UserError(
      `run ${runId} was launched on host ${where.host}: ${state}; stop it on that host`,
      1,
    );
  }
  if (entry?.pid === undefined || !isSameProcessAlive(entry.pid, entry.startTime)) {
    throw new UserError(
      `run ${runId} is not running (no daemon, and no live process recorded for it)`,
      1,
    );
  }
  // pending.json names the process; only one provably the run's harness is signalled.
  if (!isRunProcess(entry.pid, runId, entry.startTime)) {
    throw new UserError(
      `refusing to signal pid ${entry.pid} for run ${runId}: it is not that run's harness (it does not lead its own process group with AUTOLOOP_CRON_RUN_ID=${runId} in its environment, or its start time differs from the ledger's); check ${join(stateDir, "pending.json")}`,
      1,
    );
  }
  ledger.killed(runId, "operator", reason);
  signalGroup(entry.pid, "SIGTERM");
  const deadline = Date.now() + RUN_KILL_GRACE_MS;
  while (isGroupAlive(entry.pid) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  if (isGroupAlive(entry.pid)) signalGroup(entry.pid, "SIGKILL");
  return `stopped run ${runId} (process group ${entry.pid}); the next daemon start records its end`;
}
