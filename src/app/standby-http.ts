// A standby daemon's HTTP side (`[ha] lease`): `/healthz` answers healthy, saying "standby",
// so a container's health check passes while it waits; `/metrics` says standby. Closed when
// it takes over, so the daemon's own server binds the same address.
import type { Logger } from "pino";
import { type RunningHttpServer, startHttpServer } from "../http/server.js";
import type { CronConfig } from "../scheduler/config/config.js";

const DETAIL = "standby: another daemon holds the lease; this one takes over when it lapses";

/** Undefined when `[http] listen` is off, or its address is taken (by the holder, on this host). */
export async function serveStandby(
  config: CronConfig,
  logger: Logger,
): Promise<RunningHttpServer | undefined> {
  if (!config.http.enabled) return undefined;
  const server = await startHttpServer({
    host: config.http.host,
    port: config.http.port,
    health: () => ({ ok: true, reasons: [], checks: { role: { ok: true, detail: DETAIL } } }),
    metrics: {
      render: async () => ({
        contentType: "text/plain; version=0.0.4; charset=utf-8",
        body: "# HELP autoloop_cron_standby Whether this daemon stands by (1: it fires nothing).\n# TYPE autoloop_cron_standby gauge\nautoloop_cron_standby 1\n",
      }),
    },
    hosts: config.http.hosts,
    logger,
  }).catch((err: unknown) => {
    // The holder on this host has the address: stand by without it; it is ours on taking over.
    logger.warn({ err: String(err) }, "standby: not serving /healthz while it stands by");
    return undefined;
  });
  if (server !== undefined)
    logger.info({ url: server.url }, "standby: /healthz and /metrics served until it takes over");
  return server;
}
