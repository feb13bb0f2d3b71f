// `autoloop-cron runs`, `runs show`, `output` and `stop`: the run ledger for operators.
import { createReadStream, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { checkRunId, openLedgerAt, stopRun } from "../operator/run-actions.js";
import { costText } from "../scheduler/budget/spend.js";
import type { CronConfig } from "../scheduler/config/config.js";
import { isTerminal, type RunSummary } from "../scheduler/ledger/events.js";
import type { RunLedger } from "../scheduler/ledger/ledger.js";
import { UserError } from "../util/errors.js";
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
  return openLedgerAt(config.stateDir);
}

/** Why a run ended, in a few words: its stop reason, else its exit code or who stopped it. */
function endReason(r: RunSummary): string {
  if (r.status === "skipped") return `skipped: ${r.skipCause ?? ""}`;
  if (r.stopReason) return r.stopReason;
  if (r.status === "killed" && r.killedBy !== undefined)
    return r.detail ? `${r.killedBy}: ${r.detail}` : `stopped by ${r.killedBy}`;
  if (r.status === "failed" && r.exitCode !== undefined) return `exit ${r.exitCode}`;
  return "";
}

function summaryRow(r: RunSummary): string[] {
  const ended = endReason(r);
  const duration = r.durationMs === undefined ? "" : `${Math.round(r.durationMs / 1000)}s`;
  // A retry says which attempt of its slot it was (`retry`).
  const status = r.attempt === undefined ? r.status : `${r.status} (attempt ${r.attempt})`;
  return [r.runId, r.schedule, status, r.slot, duration, costText(r), ended];
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
      const spent = s.costUsd === undefined ? "" : `  cost ${costText(s)}  tokens ${s.tokens ?? 0}`;
      const attempt =
        s.attempt === undefined ? "" : `  attempt ${s.attempt} (first: ${s.parentRunId ?? "?"})`;
      process.stdout.write(
        `Run ${s.runId}  schedule ${s.schedule}  status ${s.status}${s.stopReason ? ` (${s.stopReason})` : ""}${attempt}${spent}\n`,
      );
      if (s.pullRequest !== undefined) process.stdout.write(`Pull request: ${s.pullRequest}\n`);
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
      `${table([["RUN", "SCHEDULE", "STATUS", "SLOT", "TOOK", "COST", "REASON"], ...runs.map(summaryRow)])}\n`,
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
  process.stdout.write(`${await stopRun(config.stateDir, runId, reason)}\n`);
  return 0;
}
