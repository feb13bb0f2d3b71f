// Dead-man's switch: pings an outside monitor (Healthchecks-style URL) while the daemon is healthy,
// so silence, not an alert the daemon may be too broken to send, is what wakes a human.
import pino, { type Logger } from "pino";
import { UserError } from "../util/errors.js";
import { httpRequest } from "../util/http-request.js";
import { processRedactor } from "../util/secrets.js";

export type PingOutcome =
  | { kind: "ok"; status: number; ms: number; fail: boolean }
  | { kind: "skipped"; why: "unhealthy" | "in_flight" | "stopped" }
  | { kind: "http_error"; status: number; fail: boolean }
  | { kind: "network_error"; error: string; fail: boolean }
  | { kind: "timeout"; fail: boolean };

export interface HeartbeatDeps {
  setInterval: (fn: () => void, ms: number) => unknown;
  clearInterval: (handle: unknown) => void;
  /** Epoch milliseconds; only used to time pings. */
  now: () => number;
  logger: Pick<Logger, "debug" | "info" | "warn">;
}

export interface HeartbeatOptions {
  /** A secret: it is never logged whole, only its origin. */
  url: string;
  intervalMs: number;
  isHealthy: () => boolean | Promise<boolean>;
  /** When set, an unhealthy daemon pings `<url><failSuffix>` (Healthchecks: "/fail") instead. */
  failSuffix?: string;
  /** Per-ping limit; default 10 s. */
  timeoutMs?: number;
  /** Told every outcome, e.g. for a metric; must not throw. */
  onPing?: (outcome: PingOutcome) => void;
  deps?: Partial<HeartbeatDeps>;
}

export interface Heartbeat {
  /** One ping now (the interval keeps its rhythm); resolves with what happened. */
  ping(): Promise<PingOutcome>;
  /** Stops the interval and aborts a ping in flight. */
  stop(): void;
}

export const defaultHeartbeatDeps = (): HeartbeatDeps => ({
  setInterval: (fn, ms) => {
    const handle = setInterval(fn, ms);
    // The heartbeat alone must never keep a finished daemon alive.
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clearInterval: (handle) => clearInterval(handle as Parameters<typeof clearInterval>[0]),
  now: () => Date.now(),
  logger: pino({ name: "heartbeat" }),
});

/** A ping target: the URL without credentials (kept out of the request line) plus the header they mean. */
interface Target {
  href: string;
  headers: Record<string, string>;
}

function heartbeatOrigin(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new UserError(
      "heartbeat_url: not an http(s) URL (value not shown: ping URLs are secrets); expected e.g. https://hc-ping.com/<uuid>",
    );
  }
  return parsed.origin;
}

export function pingTarget(url: string, suffix = ""): Target {
  const u = new URL(url);
  const headers: Record<string, string> = { "User-Agent": "autoloop-cron heartbeat" };
  if (u.username !== "" || u.password !== "") {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    headers.Authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
    u.username = "";
    u.password = "";
  }
  // The suffix goes on the path, before any query string: https://hc/abc/fail?rid=1
  if (suffix !== "") u.pathname = u.pathname.replace(/\/$/, "") + suffix;
  return { href: u.href, headers };
}

/** Logs a ping's outcome (the target's origin only) and tells the observer, if any. */
function reportPing(
  outcome: PingOutcome,
  origin: string,
  log: HeartbeatDeps["logger"],
  onPing: HeartbeatOptions["onPing"],
): void {
  const fields = { target: origin, outcome };
  if (outcome.kind === "ok") log.debug(fields, "heartbeat sent");
  else if (outcome.kind === "skipped") {
    if (outcome.why === "unhealthy") log.info(fields, "heartbeat skipped: daemon unhealthy");
  } else log.warn(fields, `heartbeat to ${origin} failed (${outcome.kind})`);
  try {
    onPing?.(outcome);
  } catch {
    // An observer's bug must not stop the heartbeat.
  }
}

/** Throws UserError for a URL that is not http(s); the message never quotes the secret URL. */
export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  const deps = { ...defaultHeartbeatDeps(), ...options.deps };
  const timeoutMs = options.timeoutMs ?? 10_000;
  const origin = heartbeatOrigin(options.url);
  const log = deps.logger;
  const stopped = new AbortController();
  let inFlight = false;

  // Errors can quote the URL; keep only the origin in anything we log.
  const redact = (text: string): string =>
    processRedactor.redact(text.split(options.url).join(`${origin}/[REDACTED]`));

  async function send(fail: boolean): Promise<PingOutcome> {
    const target = pingTarget(options.url, fail ? (options.failSuffix ?? "") : "");
    const started = deps.now();
    try {
      const res = await httpRequest(new URL(target.href), {
        method: "GET",
        headers: target.headers,
        timeoutMs,
        signal: stopped.signal,
      });
      if (res.status < 200 || res.status >= 300)
        return { kind: "http_error", status: res.status, fail };
      return { kind: "ok", status: res.status, ms: deps.now() - started, fail };
    } catch (err) {
      if (stopped.signal.aborted) return { kind: "skipped", why: "stopped" };
      if ((err as Error).name === "TimeoutError") return { kind: "timeout", fail };
      return { kind: "network_error", error: redact(String(err)), fail };
    }
  }

  async function healthy(): Promise<boolean> {
    try {
      return await options.isHealthy();
    } catch (err) {
      log.warn({ err: redact(String(err)) }, "heartbeat health check threw; treating as unhealthy");
      return false;
    }
  }

  async function ping(): Promise<PingOutcome> {
    let outcome: PingOutcome;
    if (stopped.signal.aborted) outcome = { kind: "skipped", why: "stopped" };
    // A ping still waiting on a slow monitor is enough; piling up more would not help.
    else if (inFlight) outcome = { kind: "skipped", why: "in_flight" };
    else {
      inFlight = true;
      try {
        const ok = await healthy();
        if (ok || options.failSuffix !== undefined) outcome = await send(!ok);
        else outcome = { kind: "skipped", why: "unhealthy" };
      } finally {
        inFlight = false;
      }
    }
    reportPing(outcome, origin, log, options.onPing);
    return outcome;
  }

  const handle = deps.setInterval(() => void ping(), options.intervalMs);
  void ping();
  return {
    ping,
    stop: () => {
      deps.clearInterval(handle);
      stopped.abort();
    },
  };
}
