// smtp://user:pass@host:port and smtps://... urls as nodemailer pool options, parsed by
// nodemailer itself, so every option it reads from a url (`tls.*`, `name`, `requireTLS`, …)
// works here too. STARTTLS is used when offered; `?requireTLS=true` refuses servers without it.
import type { SMTPPoolOptions } from "nodemailer";
import { parseConnectionUrl } from "nodemailer/lib/shared";
import { SecretError } from "../../util/secrets.js";

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

/** `?requireTLS=` (or our older `?starttls=`) as a boolean, whatever spelling was used. */
function requireTls(query: URLSearchParams): boolean | undefined {
  const value = query.get("requireTLS") ?? query.get("starttls");
  return value === null ? undefined : TRUE.has(value.toLowerCase());
}

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
  const { starttls: _alias, ...options } = parseConnectionUrl(url) as SMTPPoolOptions & {
    starttls?: unknown;
  };
  const requireTLS = requireTls(parsed.searchParams);
  return {
    // Alerts come in small bursts: two connections drain a backlog without looking like spam.
    maxConnections: 2,
    maxMessages: 100,
    ...timeouts,
    ...options,
    pool: true,
    port: options.port ?? (options.secure ? 465 : 587),
    requireTLS: requireTLS ?? false,
  };
}
