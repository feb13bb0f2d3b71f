// `autoloop-cron start`: the daemon in the foreground until SIGTERM/SIGINT.
import { clearDaemonInfo, runningDaemon, writeDaemonInfo } from "../cron/control.js";
import { SchedulerDaemon } from "../cron/daemon.js";
import { createLogger, LOG_LEVEL_ENV } from "../cron/logger.js";
import { startObservability } from "../cron/observability.js";
import { MonitorService } from "../monitor/service.js";
import { UserError } from "../util/errors.js";
import { str } from "./common.js";
import { configOf, parseCron } from "./cron-common.js";

const HELP = `Usage: autoloop-cron start [--config FILE] [--log-level LEVEL]

Runs the scheduler (and the monitor) in the foreground: fires every schedule in
schedules_dir, records runs in the ledger under state_dir, adopts runs left by a
previous daemon and catches up slots missed while it was down.

Signals: SIGHUP reloads schedule files (so does any change to them). SIGTERM or
SIGINT stops firing, terminates (or detaches, per on_shutdown) running runs, waits
up to shutdown_grace and exits 0; a second signal exits at once.
Logs: JSON lines on stdout (pretty on a terminal); level from --log-level,
${LOG_LEVEL_ENV}, or log_level in the config.
`;

export async function startCommand(argv: string[]): Promise<number> {
  const p = parseCron(argv, {
    name: "start",
    help: HELP,
    options: { "log-level": { type: "string" } },
  });
  if (p === undefined) return 0;
  const config = configOf(p);
  const level = str(p, "log-level") ?? process.env[LOG_LEVEL_ENV] ?? config.logLevel;
  const logger = createLogger(level);
  const other = runningDaemon(config.stateDir);
  if (other !== undefined) {
    throw new UserError(
      `another autoloop-cron daemon (pid ${other.pid}) is running on ${config.stateDir}; stop it first or use another state_dir`,
    );
  }
  const daemon = new SchedulerDaemon(config, { logger });
  // The monitor listens from construction: the daemon reports missed slots inside start().
  let countAttempt: (channel: string, result: "delivered" | "retry" | "dead") => void = () => {};
  const monitor = new MonitorService({
    config,
    logger,
    daemon,
    onAttempt: (o) => countAttempt(o.channel, o.kind === "retrying" ? "retry" : o.kind),
  });
  const monitorReady = monitor.start();
  const observability = await startObservability(daemon, config, logger, monitor);
  countAttempt = (channel, result) => observability.metrics.alertDelivery(channel, result);
  daemon.start();
  await monitorReady;
  writeDaemonInfo(config.stateDir, {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    config: config.file ?? "(defaults)",
    http: observability.url,
  });
  logger.info(
    { config: config.file, stateDir: config.stateDir, schedules: daemon.schedules.size },
    "autoloop-cron started",
  );

  const keepAlive = setInterval(() => {}, 1 << 30);
  let signals = 0;
  const stopped = new Promise<void>((resolve) => {
    const onSignal = (sig: NodeJS.Signals) => {
      signals++;
      if (signals > 1) {
        logger.warn({ signal: sig }, "second signal: exiting now");
        clearDaemonInfo(config.stateDir);
        process.exit(130);
      }
      logger.info({ signal: sig, mode: config.onShutdown }, "shutting down");
      void daemon.shutdown().then(resolve);
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
  process.on("SIGHUP", () => {
    logger.info("SIGHUP: reloading schedule files");
    daemon.reload();
  });
  await stopped;
  await monitor.stop();
  await observability.close();
  clearInterval(keepAlive);
  clearDaemonInfo(config.stateDir);
  logger.info("autoloop-cron stopped");
  logger.flush();
  return 0;
}
