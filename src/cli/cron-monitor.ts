// `autoloop-cron monitor`: the monitor without the scheduler, continuously or as one pass.
import pino, { type Logger } from "pino";
import { createLogger, LOG_LEVEL_ENV } from "../app/logger.js";
import { healthCheck, monitorProviders } from "../app/observability.js";
import { serveStandby } from "../app/standby-http.js";
import { Metrics } from "../http/metrics.js";
import { startHttpServer } from "../http/server.js";
import type { Notification } from "../monitor/alert-state.js";
import type { AttemptOutcome } from "../monitor/outbox/outbox.js";
import { MonitorService } from "../monitor/service.js";
import type { CronConfig } from "../scheduler/config/config.js";
import { runningDaemon } from "../scheduler/daemon/control.js";
import { holdLease } from "../scheduler/daemon/standby.js";
import { UserError } from "../util/errors.js";
import { flag, list, str, table } from "./common.js";
import { configOf, parseCron, refuseBrokenSecrets } from "./cron-common.js";

const HELP = `Usage: autoloop-cron monitor [--journal PATH]... [--once] [--log-level LEVEL]

Runs only the monitor: follows journals and alerts when a run is stuck at its
completion gate, failed, timed out, stalled or crashed, or a schedule keeps being
skipped. \`autoloop-cron start\` runs the same monitor inside the daemon; use this
command where something else launches the runs (plain cron, CI, a person).

Journals: without --journal, the config's [monitor] journals globs plus the journal
of every schedule (<project_dir>/.autoloop/journal.jsonl), and the scheduler's run
ledger for schedule names and verdicts. With --journal, only the given journals.

  --journal PATH   a journal to follow (repeatable)
  --once           one pass: read what is new, evaluate, deliver (waiting up to 30 s
                   for the outbox), print what happened, exit 0. State (positions,
                   alert state, incidents) lives under state_dir, so every alert is
                   sent once however often this runs.
  --log-level L    default: log_level of the config (${LOG_LEVEL_ENV} overrides)

Logins before the slot: as no daemon runs, it checks the agent logins of every
schedule that sets preflight (that long before its next slot, once per slot, with
the environment a run gets) and pages auth_expiring when one is refused; --once
waits for the checks due before it evaluates. See docs/preflight.md.

It refuses to run while a daemon serves the same state_dir: that daemon already
monitors, and two writers of one alert state would send alerts twice. A daemon
started on the state_dir later makes the preflight checks; this monitor then makes
none until that daemon is gone.

Examples:
  autoloop-cron monitor
  autoloop-cron monitor --once --journal /srv/app/.autoloop/journal.jsonl
  */5 * * * *  autoloop-cron monitor --once --config /etc/autoloop-cron.toml
`;

function describeOutcome(o: AttemptOutcome): string {
  if (o.kind === "delivered") return o.response;
  if (o.kind === "retrying")
    return `${o.error}; kept in the outbox, retried at ${new Date(o.nextAt).toISOString()}`;
  return `${o.error}; given up (see autoloop-cron status)`;
}

function report(notifications: Notification[], outcomes: AttemptOutcome[], journals: number) {
  const out: string[] = [`monitor: ${journals} journal(s) read`];
  if (notifications.length === 0) out.push("no new alerts");
  else
    out.push(
      table(
        notifications.map((n) => [n.kind, n.condition.kind, n.condition.summary, n.fingerprint]),
      ),
    );
  if (outcomes.length > 0)
    out.push(table(outcomes.map((o) => [o.channel, o.kind, describeOutcome(o)])));
  process.stdout.write(`${out.join("\n")}\n`);
}

export async function monitorCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "monitor",
    help: HELP,
    options: {
      journal: { type: "string", multiple: true },
      once: { type: "boolean" },
      "log-level": { type: "string" },
    },
  });
  if (p === undefined) return 0;
  if (p.positionals.length > 0)
    throw new UserError(`autoloop-cron monitor: unexpected ${JSON.stringify(p.positionals[0])}`);
  const config = configOf(p);
  refuseBrokenSecrets(config);
  const daemon = runningDaemon(config.stateDir);
  if (daemon !== undefined)
    throw new UserError(
      `a daemon (pid ${daemon.pid}) already monitors ${config.stateDir}; use \`autoloop-cron status\``,
    );
  const level = str(p, "log-level") ?? process.env[LOG_LEVEL_ENV] ?? config.logLevel;
  const once = flag(p, "once");
  // One pass prints its own report on stdout; its log goes to stderr, warnings only by default.
  const logger = once
    ? pino({ level: str(p, "log-level") ?? "warn" }, pino.destination(2))
    : createLogger(level);
  const journals = list(p, "journal");
  const service = new MonitorService({ config, logger, journals, once });
  if (once) {
    try {
      const result = await service.runOnce();
      report(result.notifications, result.outcomes, service.status().journals.length);
    } finally {
      await service.stop();
    }
    return 0;
  }
  const stopped = new Promise<"stopped">((resolve) => {
    process.once("SIGTERM", () => resolve("stopped"));
    process.once("SIGINT", () => resolve("stopped"));
  });
  // With [ha] lease, replicas take turns: one monitor alerts, the others stand by.
  const standbyHttp = config.leaseMs === undefined ? undefined : await serveStandby(config, logger);
  const lease = await holdLease(config, logger, stopped);
  await standbyHttp?.close();
  if (lease === "stopped") return 0;
  const http = await service
    .start()
    .then(() => serveMonitorHealth(service, config, logger))
    .catch(async (err: unknown) => {
      await lease?.release(); // a holder that failed to start must not keep renewing
      await service.stop();
      throw err;
    });
  logger.info({ journals: service.status().journals.length, http: http?.url }, "monitor started");
  const ended = await Promise.race([stopped, lease?.lost ?? new Promise<never>(() => {})]);
  await service.stop();
  await http?.close();
  await lease?.release();
  logger.info("monitor stopped");
  logger.flush();
  return ended === "lease lost" ? 1 : 0;
}

/**
 * /healthz and /metrics for the monitor alone (the Kubernetes Deployment probes them):
 * healthy while evaluation passes keep coming and the state dir is writable.
 */
async function serveMonitorHealth(service: MonitorService, config: CronConfig, logger: Logger) {
  if (!config.http.enabled) return undefined;
  const metrics = new Metrics();
  metrics.setProviders({ ...monitorProviders(service), lastTickAt: () => service.lastEvaluatedAt });
  const health = healthCheck(config.stateDir, () => service.lastEvaluatedAt);
  return startHttpServer({
    host: config.http.host,
    port: config.http.port,
    health,
    metrics,
    hosts: config.http.hosts,
    logger,
  });
}
