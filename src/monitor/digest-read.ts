// A digest's report read from the state dir (ledger, alert state, incidents, spend) and the
// outbox message that carries it; `autoloop-cron digest` and the monitor's sends read alike.
import { spendLine } from "../scheduler/budget/spend-rows.js";
import type { CronConfig } from "../scheduler/config/config.js";
import type { DigestConfig } from "../scheduler/config/digests.js";
import type { RunSummary } from "../scheduler/ledger/events.js";
import { RunLedger } from "../scheduler/ledger/ledger.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import type { FieldProblem } from "../util/errors.js";
import { processRedactor, redactStrings } from "../util/secrets.js";
import { buildDigest, type DigestReport, digestHeadline } from "./alerts/digest-report.js";
import type { AlertMessage } from "./alerts/message.js";
import { monitorPaths } from "./paths.js";
import { readStatus } from "./status.js";
import { readTrackerSnapshot } from "./tracker-file.js";

/** What a running daemon already holds; without it the schedule files and ledger are read. */
export interface DigestHeld {
  invalid: readonly FieldProblem[];
  schedules: ReadonlyMap<string, Schedule>;
  ledger: RunLedger;
}

/** The files each run published, from the monitor's run tracker snapshot on disk. */
export function publishedFromTracker(stateDir: string): (runId: string) => string[] | undefined {
  const read = readTrackerSnapshot(monitorPaths(stateDir).tracker);
  const byRun = new Map<string, string[]>();
  if (read.kind === "read")
    for (const run of read.snapshot.runs)
      if (Array.isArray(run.published)) byRun.set(run.run, run.published.map(String));
  return (runId) => byRun.get(runId);
}

/** The digest `config.digests` does not name: every schedule, in the defaults' zone. */
export function adHocDigest(config: CronConfig): DigestConfig {
  const tz = config.defaults.timezone;
  return { name: "digest", cron: "@daily", timezone: tz, channels: [], schedules: [] };
}

/** The report of `digest` for runs in [since, until); its text redacted like `status`'s. */
export function readDigest(
  config: CronConfig,
  digest: DigestConfig,
  since: number,
  until: number,
  held?: DigestHeld,
  reportsOf: (runId: string) => readonly string[] | undefined = publishedFromTracker(
    config.stateDir,
  ),
): DigestReport {
  const status = readStatus(config, new Date(until), held);
  const ledger = held?.ledger ?? RunLedger.open(config.stateDir);
  const wanted = new Set(digest.schedules);
  const covers = (name: string | undefined) =>
    wanted.size === 0 || (name !== undefined && wanted.has(name));
  const schedules = [...ledger.schedulesWithRuns()].filter(covers).sort();
  const report = buildDigest({
    name: digest.name,
    since,
    until,
    timezone: digest.timezone,
    schedules,
    runsOf: (name) => summaries(ledger, name),
    reportsOf,
    questions: status.firing
      .filter((f) => f.kind === "question_pending" && covers(f.schedule))
      .map((f) => ({
        ...(f.schedule !== undefined && { schedule: f.schedule }),
        ...(f.run !== undefined && { run: f.run }),
        summary: f.summary,
      })),
    incidents: status.incidents.map(({ slug, name, status, priority }) => ({
      slug,
      name,
      status,
      priority,
    })),
    spend: status.spend
      .filter((row) => covers(row.schedule))
      .map((row) => ({
        schedule: row.schedule,
        line: spendLine(row),
        exhausted: row.exhausted !== undefined,
      })),
  });
  // Run ids and stop reasons come from runs: an agent's key in them is hidden again.
  return redactStrings(report, processRedactor);
}

function* summaries(ledger: RunLedger, schedule: string): Generator<RunSummary> {
  for (const id of ledger.runIdsNewestFirst(schedule)) {
    const run = ledger.summary(id);
    if (run !== undefined) yield run;
  }
}

/** The outbox message of a digest report: kind digest, one per send. */
export function digestMessage(report: DigestReport): AlertMessage {
  return {
    fingerprint: `digest:${report.name}:${report.until}`,
    kind: "digest",
    status: "firing",
    title: `Digest ${report.name}`,
    summary: digestHeadline(report),
    timezone: report.timezone,
    occurredAt: report.until,
    journalTail: [],
    commands: { inspect: "autoloop-cron digest --since 24h" },
    digest: report,
  };
}
