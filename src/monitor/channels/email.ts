// The email channel: a pooled nodemailer SMTP transport, with a guard timer around every
// send because a stalled server can otherwise hold a delivery forever.
import nodemailer, {
  type NodemailerError,
  type SMTPPoolOptions,
  type Transporter,
} from "nodemailer";
import type { EmailChannelConfig } from "../../scheduler/config/channels.js";
import { processRedactor, type Redactor, resolveSecret } from "../../util/secrets.js";
import { type AlertChannel, type DeliveryResult, errorText } from "./delivery.js";
import { alertMail } from "./email-content.js";
import { DEFAULT_SMTP_TIMEOUTS, type SmtpTimeouts, smtpPoolOptions } from "./smtp-url.js";

export interface EmailChannelDeps {
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  redactor?: Redactor;
  timeouts?: Partial<SmtpTimeouts>;
  /** Whole-send deadline, after which the pool is torn down (default 60 s). */
  guardMs?: number;
  createTransport?: (options: SMTPPoolOptions & { pool: true }) => Transporter;
}

/** Sorts an SMTP failure into retry or give up. */
export function classifySmtpError(err: NodemailerError): DeliveryResult {
  const code = err.responseCode;
  const error = [err.code, code, err.response ?? err.message].filter(Boolean).join(" ");
  // A 4xx during auth ("454 try again later") is transient; any other auth failure is config.
  if (code !== undefined && code >= 400 && code < 500) return { kind: "retry", error };
  if (err.code === "EAUTH" || err.code === "ENOAUTH") return { kind: "permanent", error };
  if (typeof err.permanent === "boolean") {
    return err.permanent ? { kind: "permanent", error } : { kind: "retry", error };
  }
  if (code !== undefined && code >= 500 && code !== 503) return { kind: "permanent", error };
  if (err.code === "ECONFIG" || err.code === "EENVELOPE" || err.code === "EMAXRECIPIENTS") {
    return { kind: "permanent", error };
  }
  return { kind: "retry", error };
}

class GuardTimeout extends Error {}

export function createEmailChannel(
  config: EmailChannelConfig,
  deps: EmailChannelDeps = {},
): AlertChannel {
  const redactor = deps.redactor ?? processRedactor;
  const label = `channel "${config.name}": smtp_url`;
  const url = resolveSecret(config.smtpUrl, label, {
    ...(deps.env && { env: deps.env }),
    redactor,
  });
  const options = smtpPoolOptions(url, label, { ...DEFAULT_SMTP_TIMEOUTS, ...deps.timeouts });
  if (options.auth?.pass) redactor.add(options.auth.pass);
  const create = deps.createTransport ?? ((o) => nodemailer.createTransport(o) as Transporter);
  let transport = create(options);
  const now = deps.now ?? Date.now;
  const guardMs = deps.guardMs ?? 60_000;

  return {
    name: config.name,
    type: "email",
    async send(delivery) {
      const mail = alertMail(delivery, config, { now: now() });
      let timer: NodeJS.Timeout | undefined;
      const guard = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new GuardTimeout()), guardMs);
      });
      try {
        const info = (await Promise.race([transport.sendMail(mail), guard])) as {
          response?: unknown;
        };
        return { kind: "delivered", response: String(info.response ?? "accepted") };
      } catch (err) {
        if (err instanceof GuardTimeout) {
          // The pool may hold a wedged connection: drop it and start a fresh pool.
          transport.close({ force: true });
          transport = create(options);
          return { kind: "retry", error: `no answer from the SMTP server within ${guardMs} ms` };
        }
        if (err instanceof Error) return classifySmtpError(err as NodemailerError);
        return { kind: "retry", error: errorText(err) };
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      transport.close();
    },
  };
}
