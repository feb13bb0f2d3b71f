// The daemon's logger: JSON lines on stdout (journald- and container-friendly), pretty on a TTY.
import { createRequire } from "node:module";
import pino, { type Logger } from "pino";
import type PinoPretty from "pino-pretty";
import { processRedactor } from "../util/secrets.js";

// Loaded only for a terminal: a daemon logging JSON skips its module loading.
const requireModule = createRequire(import.meta.url);
const loadPretty = (): typeof PinoPretty => requireModule("pino-pretty");

export const LOG_LEVEL_ENV = "AUTOLOOP_CRON_LOG_LEVEL";

/**
 * Bytes sonic-boom gathers into one write. Its default (16 KiB) makes each log call measure
 * the whole pending chunk (Buffer.byteLength on a growing string): many lines logged at
 * once, as when a thousand slots fall due on one second, took much longer.
 */
const LOG_CHUNK_BYTES = 2048;

export function createLogger(
  level: string,
  options: { pretty?: boolean; destination?: NodeJS.WritableStream } = {},
): Logger {
  const usePretty = options.pretty ?? process.stdout.isTTY === true;
  const stream = usePretty
    ? loadPretty()({
        colorize: true,
        translateTime: "SYS:HH:MM:ss.l",
        ignore: "pid,hostname",
        destination: options.destination ?? 1,
      })
    : (options.destination ??
      pino.destination({ dest: 1, sync: false, maxWrite: LOG_CHUNK_BYTES }));
  return pino(
    {
      level,
      base: { pid: process.pid },
      // Secrets resolved at run time (SMTP URLs, webhook keys) never reach the log.
      hooks: {
        logMethod(args, method) {
          method.apply(
            this,
            args.map((a) => (typeof a === "string" ? processRedactor.redact(a) : a)) as Parameters<
              typeof method
            >,
          );
        },
      },
    },
    stream,
  );
}
