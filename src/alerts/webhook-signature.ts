// Standard Webhooks signing: HMAC-SHA256 over "<id>.<timestamp>.<body>" with the key that
// follows "whsec_" (base64), sent as `webhook-signature: v1,<base64>`.
import { createHmac } from "node:crypto";
import { SecretError } from "../util/secrets.js";

/** Decodes a whsec_<base64> secret to the HMAC key. */
export function webhookKey(secret: string, label: string): Buffer {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
  if (key.length === 0) {
    throw new SecretError(`${label}: not a whsec_<base64> secret (it decodes to nothing)`);
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
