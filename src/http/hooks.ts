// Event triggers: `POST /hooks/<schedule>` fires a schedule that has a `hook`, once per
// delivery. A request is taken only when it is small enough, signed with the schedule's own
// secret (Standard Webhooks, or GitHub's X-Hub-Signature-256) and, when it starts something
// new, within the schedule's rate; its body is kept for the run and its delivery id is the
// run's idempotency key.
import { createHmac } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { isScheduleName } from "../scheduler/config/fields.js";
import type { ControlResponse } from "../scheduler/daemon/control.js";
import {
  DELIVERY_ID,
  type HookDelivery,
  hookKey,
  hookKeyOf,
  hookPayloadPath,
  parsePayload,
} from "../scheduler/hooks/delivery.js";
import type { HookSpec, Schedule } from "../scheduler/schedules/schedule.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import { sameMac, verifyWebhook } from "../util/standard-webhooks.js";
import { hookBodyReader } from "./hook-body.js";

export interface HookEndpointDeps {
  schedules(): ReadonlyMap<string, Schedule>;
  stateDir: string;
  /** The run that claimed an idempotency key, if one did (the ledger's slots). */
  claimedBy(key: string): string | undefined;
  /** Fires the schedule for the delivery; undefined when it is gone or the daemon stops. */
  fire(name: string, delivery: HookDelivery): ControlResponse | undefined;
  now(): number;
  logger: Pick<Logger, "info" | "warn" | "error">;
  env?: NodeJS.ProcessEnv;
}

/** Deliveries answered lately, by key: a redelivery before its claim is written is a duplicate. */
const ANSWERED_KEPT = 1000;

type Answer = { status: number; body: Record<string, unknown>; headers?: Record<string, string> };

/** The handler for `/hooks/...`; returns false for any other path. */
export function hookEndpoint(
  deps: HookEndpointDeps,
): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> {
  const endpoint = new HookEndpoint(deps);
  return (req, res, url) => endpoint.serve(req, res, url);
}

/** The endpoint's memory: each schedule's recent deliveries (its rate) and those answered. */
class HookEndpoint {
  private readonly recent = new Map<string, number[]>();
  private readonly answered = new Map<string, string>();
  private readonly readBody = hookBodyReader();

  constructor(private readonly deps: HookEndpointDeps) {}

  async serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    if (!url.pathname.startsWith("/hooks/")) return false;
    const answer = await this.handle(req, url.pathname.slice("/hooks/".length));
    const body = `${JSON.stringify(answer.body)}\n`;
    res.writeHead(answer.status, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
      "Cache-Control": "no-store",
      ...answer.headers,
    });
    // A body left unread is not drained: the socket goes once the answer is out.
    if (!req.complete) res.end(body, () => req.socket.destroy());
    else res.end(body);
    return true;
  }

  private async handle(req: IncomingMessage, name: string): Promise<Answer> {
    const deps = this.deps;
    if (req.method !== "POST") {
      req.resume();
      return { status: 405, body: { error: "POST only" }, headers: { Allow: "POST" } };
    }
    const schedule = isScheduleName(name) ? deps.schedules().get(name) : undefined;
    const spec = schedule?.hook;
    // One answer for "no such schedule" and "no hook": names are not for guessing.
    if (schedule === undefined || spec === undefined) {
      req.resume();
      return { status: 404, body: { error: "no hook for this path" } };
    }
    const read = await this.readBody(req, spec);
    if (read.kind === "refused")
      return { status: read.status, body: { error: read.error }, headers: read.headers };
    const body = read.body;
    let key: Buffer | string;
    try {
      key = hookKeyOf({ ...schedule, hook: spec }, deps.env ?? process.env);
    } catch (err) {
      deps.logger.error(
        { schedule: name, err },
        "a hook request came, and its secret cannot be used",
      );
      return {
        status: 503,
        body: { error: "the hook's secret is not usable; see the daemon's log" },
      };
    }
    const checked = checkSignature(req, spec, key, body, deps.now());
    if (!checked.ok) {
      deps.logger.warn({ schedule: name, why: checked.detail }, "hook request refused");
      return { status: checked.status, body: { error: checked.detail } };
    }
    return this.admit(req, schedule, spec, checked, body);
  }

  /**
   * A signed delivery: a ping or one taken before is answered as such; only one that would
   * start something new counts against the rate, so neither an unsigned request nor a
   * captured delivery sent again can crowd the sender out.
   */
  private admit(
    req: IncomingMessage,
    schedule: Schedule,
    spec: HookSpec,
    checked: Checked,
    body: Buffer,
  ): Answer {
    const name = schedule.name;
    // GitHub's test delivery when a webhook is added: answered, nothing started.
    if (spec.format === "github" && header(req, "x-github-event") === "ping")
      return { status: 200, body: { pong: true } };
    const key = hookKey(name, checked.keyId);
    const before = this.deps.claimedBy(key) ?? this.answered.get(key);
    if (before !== undefined) {
      this.deps.logger.info(
        { schedule: name, delivery: checked.id, runId: before },
        "hook delivered again: nothing started",
      );
      return { status: 200, body: { duplicate: true, runId: before } };
    }
    const wait = this.rateLimited(name, spec.perMinute);
    if (wait !== undefined)
      return {
        status: 429,
        body: { error: `more than ${spec.perMinute} requests a minute` },
        headers: { "Retry-After": String(Math.ceil(wait / 1000)) },
      };
    return this.take(schedule, checked, key, body);
  }

  /** How long until the schedule may take a request again; undefined: now. */
  private rateLimited(name: string, perMinute: number): number | undefined {
    const now = this.deps.now();
    const times = (this.recent.get(name) ?? []).filter((t) => now - t < 60_000);
    if (times.length >= perMinute) {
      this.recent.set(name, times);
      return 60_000 - (now - times[0]!);
    }
    times.push(now);
    this.recent.set(name, times);
    return undefined;
  }

  private take(schedule: Schedule, { id }: Checked, key: string, body: Buffer): Answer {
    const deps = this.deps;
    const name = schedule.name;
    const payloadPath = hookPayloadPath(deps.stateDir, name, id);
    writeFileAtomic(payloadPath, body);
    const response = deps.fire(name, { id, key, payloadPath, payload: parsePayload(body) });
    if (response === undefined)
      return { status: 503, body: { error: "the daemon is stopping or the schedule is gone" } };
    deps.logger.info({ schedule: name, delivery: id, ok: response.ok }, "hook fired the schedule");
    if (!response.ok) return { status: 409, body: { error: response.error } };
    // A delivery that waits for its schedule's run has no run id yet: it is taken all the same.
    this.answered.set(key, response.runId ?? "(waiting)");
    if (this.answered.size > ANSWERED_KEPT)
      this.answered.delete(this.answered.keys().next().value!);
    return {
      status: 202,
      body: {
        ...(response.runId !== undefined && { runId: response.runId }),
        message: response.message,
      },
    };
  }
}

/** Whether the request is signed with the schedule's key, and the delivery id it is taken by. */
function checkSignature(
  req: IncomingMessage,
  spec: HookSpec,
  key: Buffer | string,
  body: Buffer,
  now: number,
): Checked | { ok: false; status: number; detail: string } {
  let id: string;
  let keyId: string;
  if (spec.format === "github") {
    const given = header(req, "x-hub-signature-256") ?? "";
    const mac = createHmac("sha256", key).update(body).digest("hex");
    if (!sameMac(given, `sha256=${mac}`))
      return { ok: false, status: 401, detail: "no valid X-Hub-Signature-256" };
    id = header(req, "x-github-delivery") ?? "";
    // GitHub signs no delivery id nor time: the body (which it does sign) keys the run,
    // so a captured request sent again under new ids starts nothing.
    keyId = `sha256-${mac.slice(0, 32)}`;
  } else {
    const verdict = verifyWebhook(
      key as Buffer,
      {
        id: header(req, "webhook-id"),
        timestamp: header(req, "webhook-timestamp"),
        signature: header(req, "webhook-signature"),
      },
      body,
      Math.floor(now / 1000),
    );
    if (!verdict.ok) return { ok: false, status: 401, detail: verdict.detail };
    id = verdict.id;
    keyId = id;
  }
  if (!DELIVERY_ID.test(id))
    return {
      ok: false,
      status: 400,
      detail: "a delivery id of at most 200 letters, digits, '.', '_', ':' or '-'",
    };
  return { ok: true, id, keyId };
}

interface Checked {
  ok: true;
  /** The sender's delivery id. */
  id: string;
  /** What the run's idempotency key is made of: the delivery id, or (GitHub) the body's hash. */
  keyId: string;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
