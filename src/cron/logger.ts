// The daemon's logger: JSON lines on stdout (journald- and container-friendly), pretty on a TTY.
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";
import { processRedactor } from "../util/secrets.js";

export const LOG_LEVEL_ENV = "AUTOLOOP_CRON_LOG_LEVEL";

export function createLogger(
  level: string,
  options: { pretty?: boolean; destination?: NodeJS.WritableStream } = {},
): Logger {
  const usePretty = options.pretty ?? process.stdout.isTTY === true;
  const stream = usePretty
    ? pretty({
        colorize: true,
        translateTime: "SYS:HH:MM:ss.l",
        ignore: "pid,hostname",
        destination: options.destination ?? 1,
      })
    : (options.destination ?? pino.destination({ dest: 1, sync: false }));
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
