// `autoloop-cron runs`, `runs show`, `output` and `stop`: the run ledger for operators.
import { createReadStream, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import type { CronConfig } from "../config/config.js";
import { runningDaemon, sendControl } from "../daemon/control.js";
import { isRunProcess, isSameProcessAlive } from "../launch/identity.js";
import { RUN_KILL_GRACE_MS } from "../launch/schedule-spec.js";
import { isTerminal, type RunSummary } from "../ledger/events.js";
import { RunLedger } from "../ledger/ledger.js";
import { isScheduledRunId } from "../ledger/scheduled-run-id.js";
import { UserError } from "../util/errors.js";
import { isGroupAlive, signalGroup } from "../util/process.js";
import { flag, intOption, str, table } from "./common.js";
import { configOf, parseCron, printJson } from "./cron-common.js";

const RUNS_HELP = `Usage:
  autoloop-cron runs [--schedule S] [--limit N] [--json]   recent runs, newest first
  autoloop-cron runs show <run-id> [--json]                one run's history, replayed from its log

Statuses: pending, running, completed, failed, killed, timed_out, interrupted, skipped.
`;
const OUTPUT_HELP = `Usage: autoloop-cron output <run-id> [--follow]

Prints what the run wrote to stdout and stderr (<state>/output/<run-id>.log).
--follow keeps printing new output until the run ends.
`;
const STOP_HELP = `Usage: autoloop-cron stop <run-id> [reason...]

Stops a running run: SIGTERM to its process group, SIGKILL after a grace period.
The run is recorded as killed, with the reason (default "operator stop").
`;

/** The ledger, opened for reading from a CLI (its log lines go to stderr). */
export function openLedger(config: CronConfig): RunLedger {
  return RunLedger.open(config.stateDir, { logger: pino({ level: "warn" }, pino.destination(2)) });
}

function checkRunId(id: string | undefined, usage: string): string {
  if (id === undefined) throw new UserError(`missing <run-id>; usage: ${usage}`);
  if (!isScheduledRunId(id)) throw new UserError(`${JSON.stringify(id)} is not a valid run id`);
  return id;
}

function summaryRow(r: RunSummary): string[] {
  const ended = r.status === "skipped" ? `skipped: ${r.skipCause ?? ""}` : (r.stopReason ?? "");
  const duration = r.durationMs === undefined ? "" : `${Math.round(r.durationMs / 1000)}s`;
  return [r.runId, r.schedule, r.status, r.slot, duration, ended];
}

export async function runsCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "runs",
    help: RUNS_HELP,
    options: { schedule: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" } },
  });
  if (p === undefined) return 0;
  const ledger = openLedger(configOf(p));
  if (p.positionals[0] === "show") {
    const runId = checkRunId(p.positionals[1], "autoloop-cron runs show <run-id>");
    const replay = ledger.replay(runId);
    if (replay === undefined)
      throw new UserError(
        `no run ${runId} in the ledger; \`autoloop-cron runs\` lists recent runs`,
        1,
      );
    if (flag(p, "json")) printJson(replay);
    else {
      const s = replay.summary;
      process.stdout.write(
        `Run ${s.runId}  schedule ${s.schedule}  status ${s.status}${s.stopReason ? ` (${s.stopReason})` : ""}\n`,
      );
      process.stdout.write(
        `${table(replay.events.map((e) => [e.ts, e.event, describeEvent(e as unknown as Record<string, unknown>)]))}\n`,
      );
    }
    return 0;
  }
  if (p.positionals.length > 0)
    throw new UserError(
      `autoloop-cron runs: unexpected ${JSON.stringify(p.positionals[0])}; see --help`,
    );
  const runs = ledger.listRuns({
    schedule: str(p, "schedule"),
    limit: intOption(p, "limit", "autoloop-cron runs") ?? 50,
  });
  if (flag(p, "json")) printJson(runs);
  else if (runs.length === 0) process.stdout.write("No runs recorded yet.\n");
  else
    process.stdout.write(
      `${table([["RUN", "SCHEDULE", "STATUS", "SLOT", "TOOK", "REASON"], ...runs.map(summaryRow)])}\n`,
    );
  return 0;
}

function describeEvent(e: Record<string, unknown>): string {
  const skip = new Set(["ts", "event", "runId", "argv"]);
  return Object.entries(e)
    .filter(([k, v]) => !skip.has(k) && v !== undefined && v !== null && v !== "")
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");
}

/** Copies `file` from `offset` to stdout; resolves with the new offset. */
function copyFrom(file: string, offset: number): Promise<number> {
  const size = existsSync(file) ? statSync(file).size : 0;
  if (size <= offset) return Promise.resolve(offset);
  return new Promise((resolve, reject) => {
    createReadStream(file, { start: offset, end: size - 1 })
      .on("data", (chunk) => process.stdout.write(chunk))
      .on("end", () => resolve(size))
      .on("error", reject);
  });
}

/** Streams a run's output until the ledger says it ended (or once, without follow). */
export async function streamOutput(
  config: CronConfig,
  runId: string,
  follow: boolean,
): Promise<RunSummary | undefined> {
  const file = join(config.stateDir, "output", `${runId}.log`);
  let offset = await copyFrom(file, 0);
  for (;;) {
    const summary = openLedger(config).replay(runId)?.summary;
    const ended = summary === undefined ? !follow : isTerminal(summary.status);
    if (!follow || ended) {
      await copyFrom(file, offset);
      return summary;
    }
    await new Promise((r) => setTimeout(r, 250));
    offset = await copyFrom(file, offset);
  }
}

export async function outputCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "output",
    help: OUTPUT_HELP,
    options: { follow: { type: "boolean", short: "f" } },
  });
  if (p === undefined) return 0;
  const config = configOf(p);
  const runId = checkRunId(p.positionals[0], "autoloop-cron output <run-id> [--follow]");
  if (
    !existsSync(join(config.stateDir, "output", `${runId}.log`)) &&
    openLedger(config).replay(runId) === undefined
  ) {
    throw new UserError(`no output for run ${runId}; \`autoloop-cron runs\` lists recent runs`, 1);
  }
  await streamOutput(config, runId, flag(p, "follow"));
  return 0;
}

export async function stopCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, { name: "stop", help: STOP_HELP });
  if (p === undefined) return 0;
  const config = configOf(p);
  const runId = checkRunId(p.positionals[0], "autoloop-cron stop <run-id> [reason...]");
  const reason = p.positionals.slice(1).join(" ") || "operator stop";
  if (runningDaemon(config.stateDir)) {
    const response = await sendControl(config.stateDir, { action: "stop", runId, reason });
    if (!response.ok) throw new UserError(response.error, 1);
    process.stdout.write(`${response.message}\n`);
    return 0;
  }
  const ledger = openLedger(config);
  const entry = ledger.pending().find((e) => e.runId === runId);
  if (entry?.pid === undefined || !isSameProcessAlive(entry.pid, entry.startTime)) {
    throw new UserError(
      `run ${runId} is not running (no daemon, and no live process recorded for it)`,
      1,
    );
  }
  // pending.json names the process; only one provably the run's harness is signalled.
  if (!isRunProcess(entry.pid, runId, entry.startTime)) {
    throw new UserError(
      `refusing to signal pid ${entry.pid} for run ${runId}: it is not that run's harness (it does not lead its own process group with AUTOLOOP_CRON_RUN_ID=${runId} in its environment, or its start time differs from the ledger's); check ${join(config.stateDir, "pending.json")}`,
      1,
    );
  }
  ledger.killed(runId, "operator", reason);
  signalGroup(entry.pid, "SIGTERM");
  const deadline = Date.now() + RUN_KILL_GRACE_MS;
  while (isGroupAlive(entry.pid) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  if (isGroupAlive(entry.pid)) signalGroup(entry.pid, "SIGKILL");
  process.stdout.write(
    `stopped run ${runId} (process group ${entry.pid}); the next daemon start records its end\n`,
  );
  return 0;
}
