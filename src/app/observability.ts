// The daemon's outward signals: the status page, /healthz and /metrics over HTTP, and the
// heartbeat ping.
import type { Logger } from "pino";
import { evaluateHealth, type HealthReport } from "../http/health.js";
import { hookEndpoint } from "../http/hooks.js";
import type { MetricsProviders } from "../http/metric-providers.js";
import { Metrics } from "../http/metrics.js";
import { startHttpServer } from "../http/server.js";
import { failingWriters, type WriteTrouble } from "../journal/held-lines.js";
import type { MonitorService } from "../monitor/service.js";
import type { CronConfig } from "../scheduler/config/config.js";
import type { SchedulerDaemon } from "../scheduler/daemon/daemon.js";
import { httpRequest } from "../util/http-request.js";
import { resolveSecret } from "../util/secrets.js";
import { cachedWritableProbe, probeWritableSync } from "../util/writable-probe.js";
import { newToken } from "../web/guard.js";
import { LiveUpdates } from "../web/live.js";
import { createStatusPage } from "../web/status-page.js";
import { startHeartbeat } from "./heartbeat.js";

/** The daemon ticks every second; /healthz turns unhealthy after 3 missed 10 s intervals. */
const HEALTH_TICK_INTERVAL_MS = 10_000;

export interface Observability {
  metrics: Metrics;
  health(): Promise<HealthReport>;
  /** The URL /healthz and /metrics are served on, or "" when disabled. */
  url: string;
  close(): Promise<void>;
}

/** The monitor's gauges: outbox backlog and dead letters, journal lag, open incidents. */
export function monitorProviders(monitor: MonitorService): MetricsProviders {
  return {
    outbox: () => {
      const status = monitor.outbox.status();
      return { backlog: status.backlog, dead: status.deadLetters.length };
    },
    journals: () => monitor.status().journals.map((j) => ({ path: j.path, lagBytes: j.lagBytes })),
    openIncidents: () => monitor.status().openIncidents,
  };
}

/** /healthz: healthy while `lastTickAt` keeps advancing and the state dir is writable. */
export function healthCheck(
  stateDir: string,
  lastTickAt: () => number | undefined,
  writeTrouble: () => Array<WriteTrouble & { what: string }> = () => [],
): () => Promise<HealthReport> {
  const startedAt = Date.now();
  // Checked once now, synchronously, before the schedules load: the first /healthz need not
  // wait for a disk check queued behind the schedule files' reads.
  const probe = cachedWritableProbe(stateDir, { initial: probeWritableSync(stateDir) });
  return async () =>
    evaluateHealth({
      now: Date.now(),
      lastTickAt: lastTickAt(),
      tickIntervalMs: HEALTH_TICK_INTERVAL_MS,
      startedAt,
      stateDirWritable: await probe(),
      extraChecks: writesCheck(writeTrouble()),
    });
}

/** `writes`: failing while the ledger's or the outbox's lines wait in memory (a full disk). */
function writesCheck(trouble: Array<WriteTrouble & { what: string }>) {
  const detail = trouble
    .map((t) => `${t.what}: ${t.error} since ${t.since}, ${t.waiting} line(s) held in memory`)
    .join("; ");
  return { writes: { ok: trouble.length === 0, detail: detail || "every write went through" } };
}

/**
 * Asks the endpoint for /healthz once, before the schedules load: the first request a server
 * answers compiles its request path, which a probe arriving during a big load
 * would otherwise wait for; and a daemon that cannot reach its own endpoint says so.
 */
export async function selfCheck(url: string, logger: Pick<Logger, "debug" | "warn">) {
  try {
    const answer = await httpRequest(new URL("/healthz", url), { method: "GET", timeoutMs: 2000 });
    logger.debug({ status: answer.status }, "/healthz answered the daemon's own request");
  } catch (err) {
    logger.warn({ err, url }, "/healthz did not answer the daemon's own request");
  }
}

/** Open status pages refresh when a run starts, ends or is skipped, or an alert goes out. */
function publishChanges(daemon: SchedulerDaemon, live: LiveUpdates, monitor?: MonitorService) {
  daemon.on("fire", (e) => live.publish("run.started", { run: e.runId }));
  daemon.on("finished", (e) => live.publish("run.finished", { run: e.runId }));
  daemon.on("skipped", (e) => live.publish("run.skipped", { run: e.runId }));
  daemon.on("loaded", () => live.publish("schedules.loaded"));
  monitor?.notified.push(() => live.publish("alert"));
}

/** The daemon's and its monitor's metrics, counted from their events. */
function daemonMetrics(
  daemon: SchedulerDaemon,
  config: CronConfig,
  monitor: MonitorService | undefined,
): Metrics {
  // Without [http] nothing can read /metrics: no process metrics, whose event-loop sampler
  // woke an idle daemon ten times a second, a large share of its idle CPU.
  const metrics = new Metrics({ defaultMetrics: config.http.enabled });
  if (monitor) metrics.setProviders(monitorProviders(monitor));
  daemon.on("fire", (e) => {
    metrics.runStarted(e.schedule);
    metrics.fireLateness(e.schedule, e.latenessMs / 1000);
  });
  daemon.on("finished", (e) => {
    metrics.runFinished(e.schedule, e.outcome.status, e.outcome.durationMs / 1000);
    if (e.outcome.spend !== undefined) metrics.runSpent(e.schedule, e.outcome.spend);
  });
  daemon.on("skipped", (e) => metrics.slotSkipped(e.schedule, e.cause));
  metrics.setProviders({
    schedulesLoaded: () => daemon.schedules.size,
    invalidScheduleFiles: () => new Set(daemon.invalidProblems.map((p) => p.file)).size,
    lastTickAt: () => daemon.lastTickAt.getTime() || undefined,
  });
  return metrics;
}

export async function startObservability(
  daemon: SchedulerDaemon,
  config: CronConfig,
  logger: Logger,
  monitor?: MonitorService,
): Promise<Observability> {
  const metrics = daemonMetrics(daemon, config, monitor);
  const health = healthCheck(
    config.stateDir,
    () => daemon.lastTickAt.getTime() || undefined,
    () => failingWriters({ ledger: daemon.ledger, outbox: monitor?.outbox }),
  );

  const live = new LiveUpdates();
  const page =
    config.http.enabled && config.http.statusPage
      ? createStatusPage({
          config,
          daemon,
          live,
          token: newToken(),
          actions: config.http.actions,
          hosts: config.http.hosts,
        })
      : undefined;
  if (page !== undefined) publishChanges(daemon, live, monitor);
  const server = config.http.enabled
    ? await startHttpServer({
        host: config.http.host,
        port: config.http.port,
        health,
        metrics,
        ...(page && { page }),
        hooks: hookEndpoint({
          schedules: () => daemon.schedules,
          stateDir: config.stateDir,
          claimedBy: (key) => daemon.ledger.slotOwner(key),
          fire: (name, delivery) => daemon.fireHook(name, delivery),
          now: Date.now,
          logger,
        }),
        hosts: config.http.hosts,
        logger,
      })
    : undefined;
  if (server) {
    logger.info(
      { url: server.url },
      page ? "serving the status page, /healthz and /metrics" : "serving /healthz and /metrics",
    );
    await selfCheck(server.url, logger);
  }

  const heartbeat = config.heartbeat
    ? startHeartbeat({
        url: resolveSecret(config.heartbeat.url, "heartbeat_url"),
        intervalMs: config.heartbeat.intervalMs,
        isHealthy: async () => (await health()).ok,
        failSuffix: "/fail",
        deps: { logger },
      })
    : undefined;

  return {
    metrics,
    health,
    url: server?.url ?? "",
    async close() {
      heartbeat?.stop();
      live.close();
      await server?.close();
    },
  };
}
