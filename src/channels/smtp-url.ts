// smtp://user:pass@host:port and smtps://... urls as nodemailer pool options. STARTTLS is
// used when the server offers it; `?requireTLS=true` refuses servers that do not.
import type { SMTPPoolOptions } from "nodemailer";
import { SecretError } from "../util/secrets.js";

export interface SmtpTimeouts {
  connectionTimeout: number;
  greetingTimeout: number;
  socketTimeout: number;
}

export const DEFAULT_SMTP_TIMEOUTS: SmtpTimeouts = {
  connectionTimeout: 10_000,
  greetingTimeout: 10_000,
  socketTimeout: 30_000,
};

const TRUE = new Set(["1", "true", "yes", "required"]);

/** Parses the url; the error names `label` but never echoes the url (it holds a password). */
export function smtpPoolOptions(
  url: string,
  label: string,
  timeouts: SmtpTimeouts = DEFAULT_SMTP_TIMEOUTS,
): SMTPPoolOptions & { pool: true } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SecretError(`${label}: not a valid url; expected smtp://user:pass@host:port`);
  }
  if (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") {
    throw new SecretError(
      `${label}: scheme ${parsed.protocol.replace(/:$/, "")} is not supported; expected smtp or smtps`,
    );
  }
  if (parsed.hostname === "") throw new SecretError(`${label}: the url has no host`);
  const secure = parsed.protocol === "smtps:";
  const user = decodeURIComponent(parsed.username);
  const pass = decodeURIComponent(parsed.password);
  const query = parsed.searchParams;
  const requireTLS = TRUE.has(
    (query.get("requireTLS") ?? query.get("starttls") ?? "").toLowerCase(),
  );
  return {
    pool: true,
    host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: parsed.port === "" ? (secure ? 465 : 587) : Number(parsed.port),
    secure,
    requireTLS,
    ...(user !== "" && { auth: { user, pass } }),
    ...timeouts,
    // Alerts come in small bursts: two connections drain a backlog without looking like spam.
    maxConnections: 2,
    maxMessages: 100,
  };
}
