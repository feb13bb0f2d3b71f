// Standard Webhooks signing and checking: HMAC-SHA256 over "<id>.<timestamp>.<body>" with the
// key that follows "whsec_" (base64), sent as `webhook-signature: v1,<base64>` (the alerts we
// send, and the event triggers we take).
import { createHmac, timingSafeEqual } from "node:crypto";
import { SecretError } from "./secrets.js";

/** A webhook secret that can never sign right: `start` refuses it instead of sending alerts. */
export class MalformedWebhookSecretError extends SecretError {}

const WHSEC = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
export const WEBHOOK_SECRET_HINT =
  'expected whsec_ followed by the base64 of 24 to 64 random bytes; generate one with `echo "whsec_$(openssl rand -base64 32)"` and give the same value to the receiver';

/**
 * Decodes a whsec_<base64> secret to the HMAC key. Anything else is refused at start: lenient
 * base64 decoding would map different strings to the same key. The message never repeats
 * the secret.
 */
export function webhookKey(secret: string, label: string): Buffer {
  const m = WHSEC.exec(secret.trim());
  const key = m === null ? undefined : Buffer.from(m[1]!, "base64");
  if (key === undefined || key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    const found =
      m === null
        ? secret.startsWith("whsec_")
          ? "whsec_ and text that is not base64"
          : "a value without the whsec_ prefix"
        : `a key of ${key!.length} bytes`;
    throw new MalformedWebhookSecretError(
      `${label}: not a Standard Webhooks secret: found ${found}; ${WEBHOOK_SECRET_HINT}`,
    );
  }
  return key;
}

export function signWebhook(
  key: Buffer,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const mac = createHmac("sha256", key)
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest("base64");
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers for one request. */
export function webhookHeaders(
  key: Buffer,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": signWebhook(key, id, timestampSeconds, body),
  };
}

/** How far a request's `webhook-timestamp` may be from now (the spec's tolerance). */
export const REPLAY_WINDOW_SECONDS = 5 * 60;

export type WebhookCheck =
  | { ok: true; id: string }
  | { ok: false; why: "headers" | "timestamp" | "signature"; detail: string };

/** Equal MACs, in time that does not tell where they differ. */
export function sameMac(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Checks a request's Standard Webhooks headers against `body`: the id, a timestamp within the
 * replay window of `nowSeconds`, and one `v1,` signature (of several, space-separated) made
 * with `key`.
 */
export function verifyWebhook(
  key: Buffer,
  headers: { id?: string; timestamp?: string; signature?: string },
  body: Buffer,
  nowSeconds: number,
): WebhookCheck {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature)
    return {
      ok: false,
      why: "headers",
      detail: "webhook-id, webhook-timestamp and webhook-signature are required",
    };
  const ts = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  if (!(Math.abs(nowSeconds - ts) <= REPLAY_WINDOW_SECONDS))
    return {
      ok: false,
      why: "timestamp",
      detail: `webhook-timestamp is not within ${REPLAY_WINDOW_SECONDS} seconds of now`,
    };
  const mac = createHmac("sha256", key).update(`${id}.${ts}.`).update(body).digest("base64");
  const signed = signature.split(" ").some((s) => s.startsWith("v1,") && sameMac(s.slice(3), mac));
  return signed
    ? { ok: true, id }
    : { ok: false, why: "signature", detail: "no valid v1 signature in webhook-signature" };
}
