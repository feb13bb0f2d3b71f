// A run's secrets (the variables of its env files: an agent's keys) kept out of everything
// the harness writes: journal fields, progress lines, and, through the event tool, payloads,
// tasks and memory entries.
import type { FieldValue } from "../journal/codec.js";
import { Redactor } from "../util/secrets.js";

export function secretsRedactor(secretEnv: Readonly<Record<string, string>> = {}): Redactor {
  return Redactor.of(Object.values(secretEnv));
}

/**
 * The values of the run's secrets inside the run (the event tool's side): the harness names
 * them in AUTOLOOP_SECRET_ENV, and the agent's environment holds their values.
 */
export function runSecretValues(env: NodeJS.ProcessEnv): string[] {
  return (env.AUTOLOOP_SECRET_ENV ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "")
    .map((name) => env[name] ?? "")
    .filter((value) => value !== "");
}

/** What the event tool writes for a run (`task add`, `memory add`) passes through this. */
export function runRedactorFromEnv(env: NodeJS.ProcessEnv): Redactor {
  return Redactor.of(runSecretValues(env));
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
