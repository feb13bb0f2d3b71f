// `autoloop-cron start`: the daemon in the foreground until SIGTERM/SIGINT.

import { startDeliveries } from "../app/deliveries.js";
import { type IssueWiring, startIssueFollowUps } from "../app/issues.js";
import { createLogger, LOG_LEVEL_ENV } from "../app/logger.js";
import { startObservability } from "../app/observability.js";
import { serveStandby } from "../app/standby-http.js";
import type { DeliveryQueue } from "../delivery/queue.js";
import { MonitorService } from "../monitor/service.js";
import { LOG_LEVELS } from "../scheduler/config/schema.js";
import { clearDaemonInfo, runningDaemon, writeDaemonInfo } from "../scheduler/daemon/control.js";
import { SchedulerDaemon } from "../scheduler/daemon/daemon.js";
import { holdLease } from "../scheduler/daemon/standby.js";
import { readProcessStartTime } from "../scheduler/launch/identity.js";
import { SpawnHelper } from "../scheduler/launch/spawn-helper.js";
import { UserError } from "../util/errors.js";
import { str } from "./common.js";
import { configOf, parseCron, refuseBrokenSecrets } from "./cron-common.js";

const HELP = `Usage: autoloop-cron start [--config FILE] [--log-level LEVEL]

Runs the scheduler (and the monitor) in the foreground: fires every schedule in
schedules_dir, records runs in the ledger under state_dir, adopts runs left by a
previous daemon and catches up slots missed while it was down.

With [ha] lease set, several daemons may start on one state_dir: the one holding
the lease fires, the others stand by and take over when it lapses (docs/standby.md).
A daemon that loses its lease stops firing at once and exits 1.

Signals: SIGHUP reloads schedule files (so does any change to them). SIGTERM or
SIGINT stops firing, terminates (or detaches, per on_shutdown) running runs, waits
up to shutdown_grace and exits 0; a second signal exits at once.
Logs: JSON lines on stdout (pretty on a terminal); level from --log-level,
${LOG_LEVEL_ENV}, or log_level in the config.
`;

/** Signals this close after the first are the same request, delivered twice. */
const DUPLICATE_SIGNAL_MS = 1_000;

export async function startCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "start",
    help: HELP,
    options: { "log-level": { type: "string" } },
  });
  if (p === undefined) return 0;
  const config = configOf(p);
  refuseBrokenSecrets(config);
  const level = str(p, "log-level") ?? process.env[LOG_LEVEL_ENV] ?? config.logLevel;
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new UserError(
      `${str(p, "log-level") !== undefined ? "--log-level" : LOG_LEVEL_ENV} ${JSON.stringify(level)}: not a log level; use one of ${LOG_LEVELS.join(", ")}`,
    );
  const logger = createLogger(level);
  const other = config.leaseMs === undefined ? runningDaemon(config.stateDir) : undefined;
  if (other !== undefined) {
    throw new UserError(
      `another autoloop-cron daemon (pid ${other.pid}) is running on ${config.stateDir}; stop it first, use another state_dir, or set [ha] lease to run it as a standby`,
    );
  }
  // Signals first: one that arrives while starting up stops the daemon once it is up.
  const stopped = stopRequested(logger, config.stateDir);
  const standbyHttp = config.leaseMs === undefined ? undefined : await serveStandby(config, logger);
  const lease = await holdLease(config, logger, stopped);
  await standbyHttp?.close();
  if (lease === "stopped") return 0;
  const services = await startServices(config, logger).catch(async (err: unknown) => {
    await lease?.release(); // a holder that failed to start must not keep renewing
    throw err;
  });
  lease?.onLost(() => services.daemon.stopFiring());
  writeDaemonInfo(config.stateDir, {
    pid: process.pid,
    startTime: readProcessStartTime(process.pid),
    startedAt: new Date().toISOString(),
    config: config.file ?? "(defaults)",
    http: services.observability.url,
  });
  logger.info(
    { config: config.file, stateDir: config.stateDir, schedules: services.daemon.schedules.size },
    "autoloop-cron started",
  );
  process.on("SIGHUP", () => {
    logger.info("SIGHUP: reloading schedule files");
    void services.daemon.reload();
  });

  const keepAlive = setInterval(() => {}, 1 << 30);
  const signal = await Promise.race([stopped, lease?.lost ?? new Promise<never>(() => {})]);
  logger.info({ signal, mode: config.onShutdown }, "shutting down");
  await services.daemon.shutdown();
  await services.monitor.stop();
  await services.deliveries.close();
  await services.issues.followUps.close();
  await services.observability.close();
  services.spawner.close();
  clearInterval(keepAlive);
  // After a lost lease, daemon.json may be the new holder's already.
  if (signal !== "lease lost") clearDaemonInfo(config.stateDir);
  await lease?.release();
  logger.info("autoloop-cron stopped");
  await new Promise<void>((resolve) => logger.flush(() => resolve()));
  // Detached runs still hold pipes to us; they must not keep this process alive.
  if (config.onShutdown === "detach") process.exit(signal === "lease lost" ? 1 : 0);
  return signal === "lease lost" ? 1 : 0;
}

type Logger = ReturnType<typeof createLogger>;

/**
 * The first SIGTERM or SIGINT (resolved); a second one later exits at once. Ctrl-C under
 * `npm start` arrives twice at once (from the terminal, and forwarded by npm): one request.
 */
function stopRequested(logger: Logger, stateDir: string): Promise<NodeJS.Signals> {
  let signals = 0;
  let firstSignalAt = 0;
  return new Promise((resolve) => {
    const onSignal = (sig: NodeJS.Signals) => {
      if (signals > 0 && Date.now() - firstSignalAt < DUPLICATE_SIGNAL_MS) return;
      signals++;
      if (signals === 1) firstSignalAt = Date.now();
      if (signals > 1) {
        logger.warn({ signal: sig }, "second signal: exiting now");
        clearDaemonInfo(stateDir);
        process.exit(130);
      }
      resolve(sig);
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}

/** The spawn helper, the daemon, its monitor and its HTTP side, started; or none of them. */
async function startServices(config: ReturnType<typeof configOf>, logger: Logger) {
  // Started before anything is loaded: the helper's own fork is cheapest from a small process.
  const spawner = new SpawnHelper(
    [process.execPath, process.argv[1]!, "spawn-helper"],
    logger,
  ).open();
  const daemon = new SchedulerDaemon(config, { logger, startProcess: spawner.start });
  let countAttempt: (channel: string, result: "delivered" | "retry" | "dead") => void = () => {};
  const monitor = new MonitorService({
    config,
    logger,
    daemon,
    onAttempt: (o) => countAttempt(o.channel, o.kind === "retrying" ? "retry" : o.kind),
  });
  let observability: Awaited<ReturnType<typeof startObservability>> | undefined;
  let deliveries: DeliveryQueue | undefined;
  let issues: IssueWiring | undefined;
  try {
    observability = await startObservability(daemon, config, logger, monitor);
    issues = startIssueFollowUps(daemon, logger);
    deliveries = startDeliveries(daemon, logger, monitor, {}, issues.forDeliveries);
    issues.attach(deliveries);
    const metrics = observability.metrics;
    countAttempt = (channel, result) => metrics.alertDelivery(channel, result);
    // The monitor listens from its start: the daemon reports missed slots inside start().
    const monitorReady = monitor.start();
    await daemon.start();
    await monitorReady;
  } catch (err) {
    // Fail as a failed service should: stop what started, so the process exits non-zero.
    await daemon.shutdown("terminate", 0).catch(() => {});
    await monitor.stop().catch(() => {});
    await observability?.close().catch(() => {});
    await deliveries?.close().catch(() => {});
    await issues?.followUps.close().catch(() => {});
    spawner.close();
    throw err;
  }
  return { spawner, daemon, monitor, observability, deliveries, issues };
}
