// /metrics served over real HTTP parses as Prometheus text format and holds what was recorded.
import { afterEach, describe, expect, it } from "vitest";
import { Metrics } from "../../src/http/metrics.js";
import { type RunningHttpServer, startHttpServer } from "../../src/http/server.js";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
interface Family {
  help?: string;
  type?: string;
  samples: Sample[];
}

// The text exposition format 0.0.4, strictly: every line is HELP, TYPE, a sample or empty.
const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`;
// Values follow Go's ParseFloat, which ignores case in NaN/Inf (prom-client writes "Nan").
const VALUE = "(?:[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?|[+-][iI][nN][fF]|[nN][aA][nN])";
const HELP_LINE = new RegExp(`^# HELP (${NAME}) ((?:[^\\\\\\n]|\\\\[\\\\n])*)$`);
const TYPE_LINE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE_LINE = new RegExp(
  `^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*,?)?\\})? (${VALUE})(?: -?\\d+)?$`,
);
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"/g;
const unescapeText = (s: string) => s.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));

function parseValue(text: string): number {
  if (/^[+-]inf$/i.test(text)) return text.startsWith("-") ? -Infinity : Infinity;
  return /^nan$/i.test(text) ? Number.NaN : Number(text);
}

function familyOf(sample: string, families: Map<string, Family>): string {
  if (families.has(sample)) return sample;
  const base = sample.replace(/_(bucket|sum|count|total|created)$/, "");
  if (families.has(base)) return base;
  throw new Error(`sample ${sample} has no # TYPE line before it`);
}

function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const closed = new Set<string>();
  let current: string | undefined;
  expect(text.endsWith("\n")).toBe(true);
  for (const line of text.slice(0, -1).split("\n")) {
    if (line === "") continue;
    const help = HELP_LINE.exec(line);
    const type = TYPE_LINE.exec(line);
    const sample = SAMPLE_LINE.exec(line);
    let name: string;
    if (help !== null) {
      name = help[1]!;
      const f = families.get(name) ?? { samples: [] };
      if (f.help !== undefined) throw new Error(`second # HELP for ${name}`);
      families.set(name, { ...f, help: unescapeText(help[2]!) });
    } else if (type !== null) {
      name = type[1]!;
      const f = families.get(name) ?? { samples: [] };
      if (f.type !== undefined || f.samples.length > 0) throw new Error(`late # TYPE: ${name}`);
      families.set(name, { ...f, type: type[2]! });
    } else if (sample !== null) {
      name = familyOf(sample[1]!, families);
      const labels: Record<string, string> = {};
      for (const m of (sample[2] ?? "").matchAll(LABEL_PAIR)) {
        if (m[1]! in labels) throw new Error(`duplicate label ${m[1]} in: ${line}`);
        labels[m[1]!] = unescapeText(m[2]!);
      }
      families.get(name)!.samples.push({ name: sample[1]!, labels, value: parseValue(sample[3]!) });
    } else {
      throw new Error(`line is not Prometheus text format: ${JSON.stringify(line)}`);
    }
    // A family's lines must be contiguous.
    if (name !== current) {
      if (closed.has(name)) throw new Error(`${name} appears in two places`);
      if (current !== undefined) closed.add(current);
      current = name;
    }
  }
  for (const [name, f] of families) if (f.type === "histogram") checkHistogram(name, f);
  return families;
}

function checkHistogram(name: string, f: Family): void {
  const series = new Map<string, Sample[]>();
  for (const s of f.samples) {
    const { le: _le, ...rest } = s.labels;
    const key = JSON.stringify(rest);
    series.set(key, [...(series.get(key) ?? []), s]);
  }
  for (const samples of series.values()) {
    const buckets = samples.filter((s) => s.name === `${name}_bucket`);
    const count = samples.find((s) => s.name === `${name}_count`);
    expect(samples.some((s) => s.name === `${name}_sum`)).toBe(true);
    for (let i = 1; i < buckets.length; i++) {
      expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
    }
    expect(buckets.at(-1)?.labels.le).toBe("+Inf");
    expect(buckets.at(-1)?.value).toBe(count?.value);
  }
}

function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}) {
  const family = families.get(familyOf(name, families));
  const hit = family?.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (hit === undefined || hit.length !== 1) {
    throw new Error(`expected one sample ${name} ${JSON.stringify(labels)}, found ${hit?.length}`);
  }
  return hit[0]!.value;
}

let server: RunningHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function scrape(metrics: Metrics): Promise<{ families: Map<string, Family>; ct: string }> {
  server ??= await startHttpServer({ port: 0, metrics, health: () => okReport });
  const res = await fetch(`${server.url}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  return { families: parseExposition(text), ct: res.headers.get("content-type") ?? "" };
}
const okReport = { ok: true, reasons: [], checks: {} };

describe("Metrics over /metrics", () => {
  it("exports recorded runs, lateness, skips and alerts with their labels", async () => {
    const metrics = new Metrics();
    metrics.runStarted("nightly");
    metrics.runStarted("nightly");
    metrics.runStarted("hourly");
    metrics.runFinished("nightly", "completed", 42);
    metrics.runFinished("nightly", "timed_out", 7200);
    metrics.fireLateness("hourly", 0.003);
    metrics.fireLateness("hourly", -2); // clock moved back: counted as on time
    metrics.slotSkipped("hourly", "overlap");
    metrics.slotSkipped("hourly", "overlap");
    metrics.alertDelivery("ops-mail", "delivered");
    metrics.alertDelivery("hook", "dead");
    metrics.runSpent("nightly", { costUsd: 0.25, tokens: 1000, unpricedIterations: 0 });
    metrics.runSpent("nightly", { costUsd: 0.5, tokens: 300, unpricedIterations: 2 });
    metrics.runSpent("nightly", {
      costUsd: 0.3,
      tokens: 700,
      unpricedIterations: 0,
      byModel: {
        "claude-sonnet-4-5": { costUsd: 0.2, tokens: 500 },
        "gpt-5-codex": { costUsd: 0.1, tokens: 200 },
      },
    });
    const { families: f, ct } = await scrape(metrics);
    const unknown = { schedule: "nightly", model: "unknown" };
    expect(value(f, "autoloop_cron_run_cost_usd_total", unknown)).toBe(0.75);
    expect(value(f, "autoloop_cron_run_tokens_total", unknown)).toBe(1300);
    const sonnet = { schedule: "nightly", model: "claude-sonnet-4-5" };
    expect(value(f, "autoloop_cron_run_cost_usd_total", sonnet)).toBe(0.2);
    expect(value(f, "autoloop_cron_run_tokens_total", { ...sonnet, model: "gpt-5-codex" })).toBe(
      200,
    );
    expect(value(f, "autoloop_cron_runs_unknown_cost_total", { schedule: "nightly" })).toBe(1);

    expect(ct).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(f.get("autoloop_cron_runs_total")?.type).toBe("counter");
    const runs = { schedule: "nightly" };
    expect(value(f, "autoloop_cron_runs_total", { ...runs, outcome: "completed" })).toBe(1);
    expect(value(f, "autoloop_cron_runs_total", { ...runs, outcome: "timed_out" })).toBe(1);
    expect(value(f, "autoloop_cron_runs_running", runs)).toBe(0);
    expect(value(f, "autoloop_cron_runs_running", { schedule: "hourly" })).toBe(1);
    const d = "autoloop_cron_run_duration_seconds";
    expect(f.get(d)?.type).toBe("histogram");
    expect(value(f, `${d}_bucket`, { ...runs, le: "1" })).toBe(0);
    expect(value(f, `${d}_bucket`, { ...runs, le: "60" })).toBe(1);
    expect(value(f, `${d}_bucket`, { ...runs, le: "7200" })).toBe(2);
    expect(value(f, `${d}_bucket`, { ...runs, le: "21600" })).toBe(2);
    expect(value(f, `${d}_sum`, runs)).toBe(7242);
    const l = "autoloop_cron_fire_lateness_seconds";
    expect(value(f, `${l}_bucket`, { schedule: "hourly", le: "0.001" })).toBe(1);
    expect(value(f, `${l}_bucket`, { schedule: "hourly", le: "0.005" })).toBe(2);
    expect(value(f, `${l}_bucket`, { schedule: "hourly", le: "60" })).toBe(2);
    const skip = { schedule: "hourly", cause: "overlap" };
    expect(value(f, "autoloop_cron_slots_skipped_total", skip)).toBe(2);
    const alerts = "autoloop_cron_alerts_total";
    expect(value(f, alerts, { channel: "ops-mail", result: "delivered" })).toBe(1);
    expect(value(f, alerts, { channel: "hook", result: "dead" })).toBe(1);
    // Process metrics come from collectDefaultMetrics on the private registry.
    expect(value(f, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(f.get("nodejs_heap_size_used_bytes")?.type).toBe("gauge");
  });

  it("reads provider gauges at scrape time and drops journals no longer followed", async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    let backlog = 2;
    let journals = [
      { path: '/srv/a "quoted"\\dir/journal.jsonl', lagBytes: 100 },
      { path: "/srv/b/journal.jsonl", lagBytes: 0 },
    ];
    metrics.setProviders({
      outbox: () => ({ backlog, dead: 1 }),
      journals: () => journals,
      schedulesLoaded: () => 3,
      invalidScheduleFiles: () => 1,
      openIncidents: () => 0,
      lastTickAt: () => Date.UTC(2025, 0, 1),
    });
    let { families: f } = await scrape(metrics);
    expect(value(f, "autoloop_cron_outbox_backlog")).toBe(2);
    expect(value(f, "autoloop_cron_outbox_dead_letters")).toBe(1);
    const lag = "autoloop_cron_journal_lag_bytes";
    expect(value(f, lag, { journal: journals[0]!.path })).toBe(100);
    expect(value(f, "autoloop_cron_schedules_loaded")).toBe(3);
    expect(value(f, "autoloop_cron_schedules_invalid_files")).toBe(1);
    expect(value(f, "autoloop_cron_open_incidents")).toBe(0);
    expect(value(f, "autoloop_cron_last_tick_timestamp_seconds")).toBe(1735689600);
    expect(f.has("process_cpu_user_seconds_total")).toBe(false);

    backlog = 5;
    journals = [{ path: "/srv/b/journal.jsonl", lagBytes: 7 }];
    ({ families: f } = await scrape(metrics));
    expect(value(f, "autoloop_cron_outbox_backlog")).toBe(5);
    expect(f.get(lag)?.samples).toEqual([
      { name: lag, labels: { journal: "/srv/b/journal.jsonl" }, value: 7 },
    ]);
  });

  it("leaves out gauges nobody provides, and reads NaN from a provider that throws", async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    metrics.setProviders({
      openIncidents: () => {
        throw new Error("incident store closed");
      },
    });
    const { families: f } = await scrape(metrics);
    expect(f.has("autoloop_cron_outbox_backlog")).toBe(false);
    expect(value(f, "autoloop_cron_open_incidents")).toBeNaN();
    // Adding a provider later registers its gauge without re-registering the others.
    metrics.setProviders({ schedulesLoaded: () => 4, openIncidents: () => 2 });
    const { families: g } = await scrape(metrics);
    expect(value(g, "autoloop_cron_schedules_loaded")).toBe(4);
    expect(value(g, "autoloop_cron_open_incidents")).toBe(2);
  });

  it("keeps several instances in one process apart (no global registry)", async () => {
    const a = new Metrics();
    const b = new Metrics();
    a.runFinished("x", "failed", 1);
    const { families: f } = await scrape(b);
    expect(f.get("autoloop_cron_runs_total")?.samples).toEqual([]);
    expect((await a.render()).body).toContain(
      'autoloop_cron_runs_total{schedule="x",outcome="failed"} 1',
    );
  });

  it("sets the running count outright, e.g. after adopting runs", async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    metrics.setRunning("nightly", 3);
    metrics.runFinished("nightly", "interrupted", Number.NaN);
    metrics.runFinished("nightly", "killed", 1);
    const { families: f } = await scrape(metrics);
    expect(value(f, "autoloop_cron_runs_running", { schedule: "nightly" })).toBe(1);
    // A NaN duration is not observed; the run still counts.
    expect(value(f, "autoloop_cron_run_duration_seconds_count", { schedule: "nightly" })).toBe(1);
    expect(value(f, "autoloop_cron_runs_total", { outcome: "interrupted" })).toBe(1);
  });
});
