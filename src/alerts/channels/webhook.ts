// The webhook channel: a signed JSON POST (Standard Webhooks headers), redirects not
// followed, the answer's status deciding between done, retry and dead letter.
import { processRedactor, type Redactor, resolveSecret } from "../../util/secrets.js";
import { parseRetryAfter } from "../backoff.js";
import type { WebhookChannelConfig } from "../channel-config.js";
import { type AlertChannel, type DeliveryResult, errorText } from "../delivery.js";
import { webhookBody } from "../render-webhook.js";
import { webhookHeaders, webhookKey } from "../webhook-signature.js";

export interface WebhookChannelDeps {
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  fetch?: typeof fetch;
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
  // fetch says only "fetch failed"; the reason (ECONNREFUSED, a DNS error) is in the cause.
  const cause = err instanceof Error ? err.cause : undefined;
  const inner = cause instanceof AggregateError ? cause.errors[0] : cause;
  return inner instanceof Error ? `${errorText(err)}: ${inner.message}` : errorText(err);
}

export function createWebhookChannel(
  config: WebhookChannelConfig,
  deps: WebhookChannelDeps = {},
): AlertChannel {
  const redactor = deps.redactor ?? processRedactor;
  const secretDeps = { ...(deps.env && { env: deps.env }), redactor };
  const url = resolveSecret(
    { env: config.url_env, file: config.url_file, value: config.url },
    `channel "${config.name}": url`,
    secretDeps,
  );
  const hasSecret = config.secret_env !== undefined || config.secret_file !== undefined;
  const secretLabel = `channel "${config.name}": secret`;
  const key = hasSecret
    ? webhookKey(
        resolveSecret(
          { env: config.secret_env, file: config.secret_file },
          secretLabel,
          secretDeps,
        ),
        secretLabel,
      )
    : undefined;
  const now = deps.now ?? Date.now;
  const doFetch = deps.fetch ?? fetch;
  const timeoutMs = deps.timeoutMs ?? 15_000;

  return {
    name: config.name,
    type: "webhook",
    async send(delivery) {
      const sentAt = now();
      const body = webhookBody(config.format ?? "standard", delivery.message, delivery.messageId, {
        now: sentAt,
        redactor,
      });
      const timestamp = Math.floor(sentAt / 1000);
      // The id goes out even unsigned: it is what lets a receiver drop a resent duplicate.
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "user-agent": "autoloop-cron",
        "webhook-id": delivery.messageId,
        "webhook-timestamp": String(timestamp),
        ...(key && webhookHeaders(key, delivery.messageId, timestamp, body)),
      };
      try {
        const res = await doFetch(url, {
          method: "POST",
          headers,
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = (await res.text()).slice(0, 300).replace(/\s+/g, " ").trim();
        return classifyHttpStatus(res.status, res.headers.get("retry-after"), text, now());
      } catch (err) {
        return { kind: "retry", error: networkError(err, timeoutMs) };
      }
    },
    async close() {},
  };
}
