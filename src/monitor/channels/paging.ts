// Paging services whose alert follows ours, keyed by our grouping key: PagerDuty's Events API
// v2 (trigger, acknowledge, resolve by `dedup_key`) and Opsgenie's Alert API (create,
// acknowledge, close by `alias`). A reminder triggers again (a no-op on an open alert there).
import type { PagingChannelConfig } from "../../scheduler/config/channels.js";
import { processRedactor, type Redactor, resolveSecret } from "../../util/secrets.js";
import { pagingSeverity } from "../alerts/alert-kinds.js";
import type { AlertMessage } from "../alerts/message.js";
import { alertFacts, renderSubject, shorten } from "../alerts/render.js";
import type { AlertChannel, DeliveryResult } from "./delivery.js";
import { postJson } from "./webhook.js";

export interface PagingChannelDeps {
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  redactor?: Redactor;
  timeoutMs?: number;
}

function details(m: AlertMessage, now: number): Record<string, string> {
  return Object.fromEntries(alertFacts(m, now).map((f) => [f.label, shorten(f.value, 1000)]));
}

/** The Events API v2 event for `m` (trigger, acknowledge or resolve). */
export function pagerDutyEvent(m: AlertMessage, routingKey: string, now: number) {
  const dedupKey = shorten(m.fingerprint, 255);
  if (m.status === "acknowledged" || m.status === "resolved")
    return {
      routing_key: routingKey,
      event_action: m.status === "acknowledged" ? "acknowledge" : "resolve",
      dedup_key: dedupKey,
    };
  return {
    routing_key: routingKey,
    event_action: "trigger",
    dedup_key: dedupKey,
    payload: {
      summary: shorten(m.title, 1024),
      source: shorten(m.schedule ?? "autoloop-cron", 255),
      // PagerDuty's severities: critical, error, warning, info; each kind says which.
      severity: pagingSeverity(m.kind),
      timestamp: m.occurredAt,
      component: shorten(m.runId ?? m.schedule ?? "autoloop-cron", 255),
      group: shorten(m.schedule ?? "autoloop-cron", 255),
      class: m.kind,
      custom_details: { ...details(m, now), summary: shorten(m.summary, 2000) },
    },
    client: "autoloop-cron",
  };
}

/** Opsgenie's priorities, P1 (critical) to P5. */
function opsgeniePriority(m: AlertMessage): "P1" | "P3" {
  return pagingSeverity(m.kind) === "critical" ? "P1" : "P3";
}

/** The Opsgenie Alert API request for `m`: path (under the base url) and body. */
export function opsgenieRequest(m: AlertMessage, now: number): { path: string; body: object } {
  const alias = shorten(m.fingerprint, 512);
  const at = (action: string) =>
    `/v2/alerts/${encodeURIComponent(alias)}/${action}?identifierType=alias`;
  if (m.status === "acknowledged")
    return {
      path: at("acknowledge"),
      body: { source: "autoloop-cron", note: "acknowledged in autoloop-cron" },
    };
  if (m.status === "resolved")
    return {
      path: at("close"),
      body: { source: "autoloop-cron", note: shorten(m.resolution ?? m.summary, 25_000) },
    };
  return {
    path: "/v2/alerts",
    body: {
      message: shorten(renderSubject(m), 130),
      alias,
      description: shorten(`${m.summary}\n\n${m.journalTail.join("\n")}`, 15_000),
      priority: opsgeniePriority(m),
      source: "autoloop-cron",
      tags: [m.kind, ...(m.schedule ? [`schedule:${m.schedule}`] : [])].map((t) => shorten(t, 50)),
      details: details(m, now),
      entity: shorten(m.schedule ?? "autoloop-cron", 512),
    },
  };
}

export function createPagingChannel(
  config: PagingChannelConfig,
  deps: PagingChannelDeps = {},
): AlertChannel {
  const redactor = deps.redactor ?? processRedactor;
  const secretDeps = { ...(deps.env && { env: deps.env }), redactor };
  const label = `channel "${config.name}": ${config.type === "pagerduty" ? "routing_key" : "api_key"}`;
  const key = resolveSecret(config.key, label, secretDeps);
  const now = deps.now ?? Date.now;
  const timeoutMs = deps.timeoutMs ?? 15_000;
  const base = config.url.replace(/\/+$/, "");
  return {
    name: config.name,
    type: config.type,
    async send(delivery): Promise<DeliveryResult> {
      const m = delivery.message;
      let target: URL;
      let body: string;
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "user-agent": "autoloop-cron",
      };
      if (config.type === "pagerduty") {
        target = new URL(base);
        body = JSON.stringify(pagerDutyEvent(m, key, now()));
      } else {
        const request = opsgenieRequest(m, now());
        target = new URL(`${base}${request.path}`);
        body = JSON.stringify(request.body);
        headers.authorization = `GenieKey ${key}`;
      }
      return postJson(target, headers, body, timeoutMs, now);
    },
    async close() {},
  };
}
