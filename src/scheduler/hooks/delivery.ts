// A webhook delivery that fires a schedule (`hook`): the idempotency key its run claims, where
// its body waits for the run, and what the run gets of it: AUTOLOOP_CRON_HOOK_* in its
// environment and the payload's values in the objective's `{{payload.<path>}}` placeholders.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveSecret } from "../../util/secrets.js";
import { webhookKey } from "../../util/standard-webhooks.js";
import { handOver } from "../history/handover.js";
import type { LaunchSpec } from "../launch/spec.js";
import type { HookSpec, Schedule } from "../schedules/schedule.js";

export interface HookDelivery {
  /** The sender's delivery id (`webhook-id`, `X-GitHub-Delivery`). */
  id: string;
  /** The idempotency key its run claims: a redelivered webhook starts nothing twice. */
  key: string;
  /** The body as received, kept for the run (0600, in the state dir). */
  payloadPath: string;
  /** The body parsed as JSON, for the placeholders; undefined when it is not JSON. */
  payload: unknown;
}

/** Delivery ids taken: path- and key-safe, as Standard Webhooks and Git hosts make them. */
export const DELIVERY_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

/** `<schedule>@hook/<delivery id>`, never the key of a cron slot (`<schedule>@<ISO time>`). */
export function hookKey(schedule: string, deliveryId: string): string {
  return `${schedule}@hook/${deliveryId}`;
}

/** `<state>/hooks/<schedule>/<delivery id>.body` */
export function hookPayloadPath(stateDir: string, schedule: string, deliveryId: string): string {
  return join(stateDir, "hooks", schedule, `${deliveryId}.body`);
}

/** The body as JSON, or undefined when it is not JSON. */
export function parsePayload(body: Buffer | string): unknown {
  try {
    return JSON.parse(body.toString());
  } catch {
    return undefined;
  }
}

/** A delivery whose body was kept (a retry of its run): read back from the state dir. */
export function keptDelivery(stateDir: string, schedule: string, id: string): HookDelivery {
  const payloadPath = hookPayloadPath(stateDir, schedule, id);
  let payload: unknown;
  try {
    payload = parsePayload(readFileSync(payloadPath));
  } catch {
    payload = undefined; // pruned meanwhile: the run gets the id, and the path says it is gone
  }
  return { id, key: hookKey(schedule, id), payloadPath, payload };
}

/** How long one placeholder's value may be in the objective. */
const VALUE_MAX = 500;
const PLACEHOLDER = /\{\{\s*(payload(?:\.[A-Za-z0-9_-]+)*|delivery_id)\s*\}\}/g;

function valueAt(payload: unknown, path: string[]): unknown {
  let cur = payload;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** A value as objective text: one line, cut, nothing for absent. */
function placeholderText(value: unknown): string {
  if (value === undefined || value === null) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return line.length <= VALUE_MAX ? line : `${line.slice(0, VALUE_MAX - 1)}…`;
}

/**
 * `objective` with `{{payload.a.b}}` replaced by that value of the payload (text, one line,
 * at most 500 characters; "" when absent) and `{{delivery_id}}` by the delivery's id.
 */
export function fillObjective(
  objective: string,
  delivery: Pick<HookDelivery, "id" | "payload">,
): string {
  return objective.replace(PLACEHOLDER, (_, name: string) => {
    if (name === "delivery_id") return delivery.id;
    return placeholderText(valueAt(delivery.payload, name.split(".").slice(1)));
  });
}

/**
 * The run's spec with what the delivery hands it: its id, and a copy of its body in the run's
 * hand-over folder (the daemon's own copy stays in its state dir, for a retry).
 */
export function withDelivery(spec: LaunchSpec, delivery: HookDelivery): LaunchSpec {
  const copy = handOver(spec.cwd, spec.runId, { payload: payloadBytes(delivery.payloadPath) });
  const env: Record<string, string> = { ...spec.env, AUTOLOOP_CRON_HOOK_ID: delivery.id };
  if (copy?.payload !== undefined) env.AUTOLOOP_CRON_HOOK_PAYLOAD = copy.payload;
  if (spec.kind === "command") return { ...spec, env };
  return { ...spec, env, objective: fillObjective(spec.objective, delivery) };
}

function payloadBytes(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch {
    return Buffer.alloc(0);
  }
}

/** The variables that hold the schedules' hook secrets (kept out of every run's environment). */
export function hookSecretEnvNames(schedules: Iterable<Schedule>): string[] {
  const names: string[] = [];
  for (const s of schedules) if (s.hook?.secret.kind === "env") names.push(s.hook.secret.name);
  return names;
}

/**
 * The key a schedule's hook checks signatures with: the Standard Webhooks key its `whsec_`
 * secret holds, or GitHub's secret as it is. Throws (a SecretError, never quoting the secret)
 * when the secret is missing, unreadable or malformed.
 */
export function hookKeyOf(
  schedule: Schedule & { hook: HookSpec },
  env: NodeJS.ProcessEnv,
): Buffer | string {
  const label = `schedule "${schedule.name}": hook secret`;
  const secret = resolveSecret(schedule.hook.secret, label, { env });
  return schedule.hook.format === "standard" ? webhookKey(secret, label) : secret;
}

/**
 * The schedules whose hook secret cannot be used (not set, unreadable, not a `whsec_` key),
 * each with why: told when the schedules load, not first when a webhook comes.
 */
export function unusableHookSecrets(
  schedules: Iterable<Schedule>,
  env: NodeJS.ProcessEnv,
): Array<{ schedule: string; problem: string }> {
  const out: Array<{ schedule: string; problem: string }> = [];
  for (const s of schedules) {
    if (s.hook === undefined) continue;
    try {
      hookKeyOf({ ...s, hook: s.hook }, env);
    } catch (err) {
      out.push({ schedule: s.name, problem: (err as Error).message });
    }
  }
  return out;
}
