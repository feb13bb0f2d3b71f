// A run's secrets (the variables of its env files: an agent's keys) kept out of everything
// the harness writes: journal fields, progress lines, and, through the event tool, payloads.
import type { FieldValue } from "../journal/codec.js";
import { Redactor } from "../util/secrets.js";

export function secretsRedactor(secretEnv: Readonly<Record<string, string>> = {}): Redactor {
  return Redactor.of(Object.values(secretEnv));
}

/** The fields with every string's secrets replaced (agent output, prompts, details). */
export function redactFields(
  fields: Record<string, FieldValue>,
  secrets: Redactor,
): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const [k, v] of Object.entries(fields))
    out[k] = typeof v === "string" ? secrets.redact(v) : v;
  return out;
}
