// PagerDuty and Opsgenie kept in step with our incident, against loopback receivers that check
// each request against the service's documented API: a failing schedule triggers (dedup_key /
// alias = our grouping key), acknowledging our incident acknowledges theirs, and the recovery
// resolves (closes) it. Mail and chat channels are not told of the ack.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { MonitorService } from "../../src/monitor/service.js";
import { acknowledgeIncident } from "../../src/operator/incident-actions.js";
import { loadConfig } from "../../src/scheduler/config/config.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";
import { type ReceivedRequest, startReceiver } from "../channels/helpers.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

const silent = pino({ level: "silent" });
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  cleanupTempDirs();
});

const SEVERITIES = ["critical", "error", "warning", "info"];

/** Checks a PagerDuty Events API v2 request as its documentation states it. */
function checkPagerDuty(req: ReceivedRequest) {
  expect(req.method).toBe("POST");
  expect(req.headers["content-type"]).toBe("application/json");
  const e = JSON.parse(req.body);
  expect(e.routing_key).toBe("R0UTINGKEY0123456789abcdefabcdef");
  expect(["trigger", "acknowledge", "resolve"]).toContain(e.event_action);
  expect(typeof e.dedup_key).toBe("string");
  expect(e.dedup_key.length).toBeLessThanOrEqual(255);
  if (e.event_action === "trigger") {
    expect(e.payload.summary.length).toBeGreaterThan(0);
    expect(e.payload.summary.length).toBeLessThanOrEqual(1024);
    expect(e.payload.source.length).toBeGreaterThan(0);
    expect(SEVERITIES).toContain(e.payload.severity);
    expect(Number.isNaN(Date.parse(e.payload.timestamp))).toBe(false);
  }
  return e;
}

/** Checks an Opsgenie Alert API request as its documentation states it. */
function checkOpsgenie(req: ReceivedRequest) {
  expect(req.method).toBe("POST");
  expect(req.headers.authorization).toBe("GenieKey og-key-1234");
  const body = JSON.parse(req.body);
  if (req.url === "/v2/alerts") {
    expect(body.message.length).toBeLessThanOrEqual(130);
    expect(body.alias.length).toBeLessThanOrEqual(512);
    expect(["P1", "P2", "P3", "P4", "P5"]).toContain(body.priority);
  } else
    expect(req.url).toMatch(/^\/v2\/alerts\/[^/]+\/(acknowledge|close)\?identifierType=alias$/);
  return { url: req.url, body };
}

async function world(runs: Array<{ at: string; status: "failed" | "completed" }>) {
  const pd = await startReceiver([{ status: 202, body: '{"status":"success"}' }]);
  const og = await startReceiver([{ status: 202, body: '{"result":"Request will be processed"}' }]);
  cleanups.push(
    () => pd.close(),
    () => og.close(),
  );
  const root = tempDir("autoloop-paging-");
  writeFileSync(
    join(root, "autoloop-cron.toml"),
    `state_dir = "state"\nschedules_dir = "schedules"\n\n[[channel]]\nname = "pd"\ntype = "pagerduty"\nrouting_key_env = "PD_KEY"\nurl = "${pd.url}"\n\n[[channel]]\nname = "og"\ntype = "opsgenie"\napi_key_env = "OG_KEY"\nurl = "${og.url.replace(/\/hook$/, "")}"\n\n[[channel]]\nname = "mail"\ntype = "email"\nfrom = "cron@example.com"\nto = ["ops@example.com"]\n`,
  );
  mkdirSync(join(root, "schedules"));
  mkdirSync(join(root, "work"));
  writeFileSync(
    join(root, "schedules", "s.toml"),
    `[[schedule]]\nname = "nightly"\ncron = "0 2 * * *"\nkind = "command"\ncommand = ["false"]\nproject_dir = "../work"\n`,
  );
  const state = join(root, "state");
  let now = new Date(0);
  const ledger = RunLedger.open(state, { logger: silent, now: () => now });
  const add = (r: { at: string; status: "failed" | "completed" }) => {
    now = new Date(r.at);
    const runId = newScheduledRunId("nightly", now);
    const planned = { runId, schedule: "nightly", slot: now, trigger: "cron" as const };
    ledger.schedule({ ...planned, kind: "command", argv: ["false"], cwd: root });
    ledger.started(runId, { pid: 1, outputPath: "o.log", journalPath: "j", journalOffset: 0 });
    ledger.finished(runId, {
      status: r.status,
      basis: "exit",
      exitCode: r.status === "failed" ? 1 : 0,
      durationMs: 10,
      journalPath: "j",
    });
  };
  for (const r of runs) add(r);
  mkdirSync(join(state, "monitor"), { recursive: true });
  writeFileSync(join(state, "monitor", "alerts.json"), '{"version": 1, "alerts": []}\n');
  writeFileSync(join(state, "monitor", "watching-since"), "2026-11-27T00:00:00.000Z\n");
  const config = loadConfig(join(root, "autoloop-cron.toml"));
  return { pd, og, state, config, add };
}

describe("paging services", () => {
  it("trigger, acknowledge and resolve PagerDuty and Opsgenie in step with our incident", async () => {
    const { pd, og, state, config, add } = await world([
      { at: "2026-11-27T02:00:10Z", status: "failed" },
    ]);
    process.env.PD_KEY = "R0UTINGKEY0123456789abcdefabcdef";
    process.env.OG_KEY = "og-key-1234";
    cleanups.push(async () => {
      delete process.env.PD_KEY;
      delete process.env.OG_KEY;
    });
    let now = new Date("2026-11-27T02:01:00Z");
    const s = new MonitorService({ config, logger: silent, now: () => now });
    cleanups.push(() => s.stop());
    await s.runOnce();
    const trigger = checkPagerDuty(await pd.requests.next());
    expect(trigger).toMatchObject({
      event_action: "trigger",
      dedup_key: "run_failed:schedule/nightly",
      payload: { severity: "critical", group: "nightly", class: "run_failed" },
    });
    const created = checkOpsgenie(await og.requests.next());
    expect(created).toMatchObject({
      url: "/v2/alerts",
      body: { alias: "run_failed:schedule/nightly", priority: "P1", source: "autoloop-cron" },
    });

    // Acked here: acknowledged there, once, whatever the passes.
    const incident = JSON.parse(
      JSON.stringify(acknowledgeIncident(state, "run-failed", "on it", now)),
    ) as { message: string };
    expect(incident.message).toContain("acknowledged");
    now = new Date("2026-11-27T02:02:00Z");
    await s.runOnce();
    await s.runOnce();
    expect(checkPagerDuty(await pd.requests.next())).toEqual({
      routing_key: "R0UTINGKEY0123456789abcdefabcdef",
      event_action: "acknowledge",
      dedup_key: "run_failed:schedule/nightly",
    });
    expect(checkOpsgenie(await og.requests.next()).url).toBe(
      `/v2/alerts/${encodeURIComponent("run_failed:schedule/nightly")}/acknowledge?identifierType=alias`,
    );

    // The next run completes: resolved there too.
    add({ at: "2026-11-27T03:00:10Z", status: "completed" });
    now = new Date("2026-11-27T03:01:00Z");
    await s.runOnce();
    expect(checkPagerDuty(await pd.requests.next())).toMatchObject({ event_action: "resolve" });
    expect(checkOpsgenie(await og.requests.next()).url).toMatch(/\/close\?identifierType=alias$/);
    expect(pd.requests.all).toHaveLength(3);
    expect(og.requests.all).toHaveLength(3);
  });
});
