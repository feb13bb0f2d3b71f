// The webhook channel: a signed JSON POST (Standard Webhooks headers), redirects not
// followed, the answer's status deciding between done, retry and dead letter.
import type { IncomingHttpHeaders } from "node:http";
import type { WebhookChannelConfig } from "../../scheduler/config/channels.js";
import { httpRequest } from "../../util/http-request.js";
import { processRedactor, type Redactor, resolveSecret } from "../../util/secrets.js";
import { webhookHeaders, webhookKey } from "../../util/standard-webhooks.js";
import { webhookBody } from "../alerts/render-webhook.js";
import { type AlertChannel, type DeliveryResult, errorText } from "./delivery.js";
import { parseRetryAfter } from "./retry-after.js";

export interface WebhookChannelDeps {
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  redactor?: Redactor;
  timeoutMs?: number;
}

/** Sorts an HTTP answer: 2xx done, 408/429/5xx retry, 3xx and other 4xx dead. */
export function classifyHttpStatus(
  status: number,
  retryAfter: string | null,
  body: string,
  now: number,
): DeliveryResult {
  const answer = `HTTP ${status}${body ? `: ${body}` : ""}`;
  if (status >= 200 && status < 300) return { kind: "delivered", response: answer };
  if (status >= 300 && status < 400) {
    return { kind: "permanent", error: `${answer} (redirects are not followed; fix the url)` };
  }
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(retryAfter, now);
    return { kind: "retry", error: answer, ...(retryAfterMs !== undefined && { retryAfterMs }) };
  }
  return { kind: "permanent", error: answer };
}

function networkError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError")) {
    return `no answer within ${timeoutMs} ms`;
  }
  return errorText(err);
}

const firstValue = (h: IncomingHttpHeaders[string]): string | null =>
  (Array.isArray(h) ? h[0] : h) ?? null;

/** Parses the (possibly secret) url; errors never repeat it. */
function webhookUrl(url: string, label: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${label}: not a valid URL; expected http(s)://host/path`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new Error(`${label}: found a ${parsed.protocol} URL; expected http or https`);
  return parsed;
}

/**
 * POSTs a JSON `body` and sorts the answer (classifyHttpStatus); no answer at all is retried.
 * Every HTTP channel sends through here: one set of retry and dead-letter rules.
 */
export async function postJson(
  target: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  now: () => number,
): Promise<DeliveryResult> {
  try {
    const res = await httpRequest(target, { method: "POST", headers, body, timeoutMs });
    const text = res.body.slice(0, 300).replace(/\s+/g, " ").trim();
    const retryAfter = firstValue(res.headers["retry-after"]);
    return classifyHttpStatus(res.status, retryAfter, text, now());
  } catch (err) {
    return { kind: "retry", error: networkError(err, timeoutMs) };
  }
}

export function createWebhookChannel(
  config: WebhookChannelConfig,
  deps: WebhookChannelDeps = {},
): AlertChannel {
  const redactor = deps.redactor ?? processRedactor;
  const secretDeps = { ...(deps.env && { env: deps.env }), redactor };
  const url = resolveSecret(config.url, `channel "${config.name}": url`, secretDeps);
  const secretLabel = `channel "${config.name}": secret`;
  const key = config.secret
    ? webhookKey(resolveSecret(config.secret, secretLabel, secretDeps), secretLabel)
    : undefined;
  const now = deps.now ?? Date.now;
  const timeoutMs = deps.timeoutMs ?? 15_000;
  const target = webhookUrl(url, `channel "${config.name}": url`);
  if (target.protocol !== "http:" && target.protocol !== "https:")
    throw new Error(
      `channel "${config.name}": url: found ${target.protocol} URL; expected http or https`,
    );

  return {
    name: config.name,
    type: "webhook",
    async send(delivery) {
      const sentAt = now();
      const body = webhookBody(
        config.format ?? "standard",
        delivery.message,
        delivery.messageId,
        { now: sentAt },
        config,
      );
      const timestamp = Math.floor(sentAt / 1000);
      // The id goes out even unsigned: it is what lets a receiver drop a resent duplicate.
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "user-agent": "autoloop-cron",
        "webhook-id": delivery.messageId,
        "webhook-timestamp": String(timestamp),
        ...(key && webhookHeaders(key, delivery.messageId, timestamp, body)),
      };
      return postJson(target, headers, body, timeoutMs, now);
    },
    async close() {},
  };
}
