// The daemon's small HTTP endpoint: GET /healthz for probes, GET /metrics for Prometheus, and
// the status page when one is given.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import pino, { type Logger } from "pino";
import { UserError } from "../util/errors.js";
import { refuseHost } from "../web/guard.js";
import type { PageHandler } from "../web/status-page.js";
import type { HealthReport } from "./health.js";
import { DEFAULT_HOST, formatHostPort } from "./listen.js";
import type { Metrics } from "./metrics.js";

export interface HttpServerOptions {
  /** Default 127.0.0.1; "0.0.0.0" or "::" to serve other machines. */
  host?: string;
  /** 0 picks a free port (tests). */
  port: number;
  health: () => Promise<HealthReport> | HealthReport;
  metrics: Pick<Metrics, "render">;
  /** The status page (`/`, `/runs/...`): it handles its own paths and methods. */
  page?: PageHandler;
  /** Event triggers (`POST /hooks/<schedule>`), authenticated by their own signatures. */
  hooks?: PageHandler;
  /**
   * Host names served besides loopback names and IP literals ([http] hosts): on a loopback
   * address, /healthz and /metrics refuse others (DNS rebinding would let a web page read them).
   */
  hosts?: readonly string[];
  logger?: Pick<Logger, "warn" | "error">;
}

export interface RunningHttpServer {
  /** e.g. "http://127.0.0.1:9464" */
  url: string;
  host: string;
  port: number;
  /** Stops listening and drops open connections; safe to call twice. */
  close(): Promise<void>;
}

const ALLOWED = "GET, HEAD";
/**
 * Probes, scrapers, up to 64 live pages and webhook senders fit well within it, and it stays
 * under the usual 1024 open files, so connections never take the descriptors the daemon needs.
 */
const MAX_CONNECTIONS = 512;
const LOOPBACK_LISTEN = /^(127(\.\d{1,3}){3}|::1|localhost)$/i;

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const host = options.host ?? DEFAULT_HOST;
  const logger = options.logger ?? pino({ name: "http" });
  // Timeouts are checked every second (Node's default is 30 s, which would let an idle
  // connection hold one of MAX_CONNECTIONS for 40 s).
  const server = createServer({ connectionsCheckingInterval: 1_000 }, (req, res) => {
    route(req, res, options, logger).catch((err: unknown) => {
      logger.error({ err, path: req.url }, "http request failed");
      if (!res.headersSent) send(req, res, 500, "application/json", json({ error: "internal" }));
      else res.destroy();
    });
  });
  // Probes and scrapers are quick; a slow client must not hold a socket for minutes.
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;
  // Each connection costs a read buffer before its request is even seen, and a file
  // descriptor: past this, new connections are dropped at once.
  server.maxConnections = MAX_CONNECTIONS;
  await listen(server, host, options.port);
  server.on("error", (err) => logger.error({ err }, "http server error"));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${formatHostPort(host, port)}`,
    host,
    port,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err === undefined ? resolve() : reject(err)));
        // Keep-alive sockets from scrapers would otherwise hold close() open for seconds.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => reject(listenError(err, host, port));
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

/** Turns a bind failure into a message that says what to change. */
export function listenError(err: NodeJS.ErrnoException, host: string, port: number): Error {
  const where = formatHostPort(host, port);
  const fix = `change [http] listen in the config, or set listen = "" to disable the HTTP server`;
  switch (err.code) {
    case "EADDRINUSE":
      return new UserError(
        `cannot serve /healthz and /metrics on ${where}: the address is already in use (another autoloop-cron daemon or another program); ${fix}`,
      );
    case "EACCES":
      return new UserError(
        `cannot serve /healthz and /metrics on ${where}: permission denied (ports below 1024 need privileges); ${fix}`,
      );
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
      return new UserError(
        `cannot serve /healthz and /metrics on ${where}: ${host} is not an address of this machine; ${fix}`,
      );
    default:
      return err;
  }
}

async function route(
  req: IncomingMessage,
  res: ServerResponse,
  options: HttpServerOptions,
  logger: Pick<Logger, "warn" | "error">,
): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (options.hooks !== undefined && (await options.hooks(req, res, url))) return;
  if (options.page !== undefined && (await options.page(req, res, url))) return;
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("Allow", ALLOWED);
    send(req, res, 405, "application/json", json({ error: "method not allowed", allow: ALLOWED }));
    return;
  }
  const path = url.pathname;
  const listen = options.host ?? DEFAULT_HOST;
  if (options.hosts !== undefined && LOOPBACK_LISTEN.test(listen)) {
    const badHost = refuseHost(req, options.hosts);
    if (badHost !== undefined) {
      send(req, res, 421, "application/json", json({ error: badHost }));
      return;
    }
  }
  if (path === "/healthz") {
    let report: HealthReport;
    try {
      report = await options.health();
    } catch (err) {
      // A check that cannot even run is itself a reason to be taken out of rotation.
      logger.error({ err }, "health check threw");
      report = { ok: false, reasons: [`health check failed: ${String(err)}`], checks: {} };
    }
    const status = report.ok ? "ok" : "unhealthy";
    const body = json({ status, reasons: report.reasons, checks: report.checks });
    send(req, res, report.ok ? 200 : 503, "application/json", body);
    return;
  }
  if (path === "/metrics") {
    const { contentType, body } = await options.metrics.render();
    send(req, res, 200, contentType, body);
    return;
  }
  send(
    req,
    res,
    404,
    "application/json",
    json({
      error: "not found",
      endpoints: options.page ? ["/", "/healthz", "/metrics"] : ["/healthz", "/metrics"],
    }),
  );
}

function json(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
): void {
  res.writeHead(status, {
    "Content-Type": contentType.includes("json") ? `${contentType}; charset=utf-8` : contentType,
    "Content-Length": Buffer.byteLength(body),
    // Health and metrics are live readings; a cached copy would hide an outage.
    "Cache-Control": "no-store",
  });
  res.end(req.method === "HEAD" ? undefined : body);
}
