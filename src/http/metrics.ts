// The daemon's Prometheus metrics: one private registry per daemon, recorded by explicit calls.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { SkipCause } from "../scheduler/ledger/events.js";
import type { RunSpend, TerminalStatus } from "../scheduler/ledger/run-outcome.js";
import { type MetricsProviders, registerProviderGauges } from "./metric-providers.js";

export type { MetricsProviders } from "./metric-providers.js";

export type AlertDeliveryResult = "delivered" | "retry" | "dead";

export interface MetricsOptions {
  /** Process metrics (CPU, memory, event-loop lag, GC); off in tests that count lines. */
  defaultMetrics?: boolean;
}

// Agent runs last from seconds (a gate that refuses at once) to hours (a long objective).
const RUN_DURATION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600];
// The timer queue should fire within milliseconds; seconds mean a blocked loop or a suspend.
const LATENESS_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class Metrics {
  /** Never the global registry, so several daemons (and tests) in one process do not collide. */
  readonly registry = new Registry();
  private readonly providers: MetricsProviders = {};
  private readonly running = new Map<string, number>();
  private readonly runs: Counter<"schedule" | "outcome">;
  private readonly runDuration: Histogram<"schedule">;
  private readonly runsRunning: Gauge<"schedule">;
  private readonly lateness: Histogram<"schedule">;
  private readonly skipped: Counter<"schedule" | "cause">;
  private readonly alerts: Counter<"channel" | "result">;
  private readonly cost: Counter<"schedule" | "model">;
  private readonly tokens: Counter<"schedule" | "model">;
  private readonly unknownCost: Counter<"schedule">;

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry];
    // The event-loop delay sampler wakes the process every `precision` ms (default 10, i.e.
    // 100 wake-ups a second): 100 ms keeps the lag metrics with a tenth of the wake-ups.
    if (options.defaultMetrics ?? true) {
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
    }
    this.runs = new Counter({
      name: "autoloop_cron_runs_total",
      help: "Scheduled runs that ended, by schedule and outcome.",
      labelNames: ["schedule", "outcome"],
      registers,
    });
    this.runDuration = new Histogram({
      name: "autoloop_cron_run_duration_seconds",
      help: "Wall-clock duration of scheduled runs.",
      labelNames: ["schedule"],
      buckets: RUN_DURATION_BUCKETS,
      registers,
    });
    this.runsRunning = new Gauge({
      name: "autoloop_cron_runs_running",
      help: "Runs in progress, by schedule.",
      labelNames: ["schedule"],
      registers,
    });
    this.lateness = new Histogram({
      name: "autoloop_cron_fire_lateness_seconds",
      help: "How long after its planned time a slot was actually fired.",
      labelNames: ["schedule"],
      buckets: LATENESS_BUCKETS,
      registers,
    });
    this.skipped = new Counter({
      name: "autoloop_cron_slots_skipped_total",
      help: "Slots that were not run, by schedule and cause.",
      labelNames: ["schedule", "cause"],
      registers,
    });
    this.alerts = new Counter({
      name: "autoloop_cron_alerts_total",
      help: "Alert delivery attempts, by channel and result.",
      labelNames: ["channel", "result"],
      registers,
    });
    this.cost = new Counter({
      name: "autoloop_cron_run_cost_usd_total",
      help: "What ended runs cost (the iterations whose cost is known), by schedule and model.",
      labelNames: ["schedule", "model"],
      registers,
    });
    this.tokens = new Counter({
      name: "autoloop_cron_run_tokens_total",
      help: "Tokens ended runs used, by schedule and model.",
      labelNames: ["schedule", "model"],
      registers,
    });
    this.unknownCost = new Counter({
      name: "autoloop_cron_runs_unknown_cost_total",
      help: "Ended runs with iterations of unknown cost (not counted in the cost), by schedule.",
      labelNames: ["schedule"],
      registers,
    });
    registerProviderGauges(this.registry, () => this.providers);
  }

  /** Supplies (or replaces) the functions read at every scrape; unset ones are not exported. */
  setProviders(providers: MetricsProviders): void {
    Object.assign(this.providers, providers);
    registerProviderGauges(this.registry, () => this.providers);
  }

  runStarted(schedule: string): void {
    this.setRunning(schedule, (this.running.get(schedule) ?? 0) + 1);
  }

  runFinished(schedule: string, outcome: TerminalStatus, durationSeconds: number): void {
    this.runs.inc({ schedule, outcome });
    if (Number.isFinite(durationSeconds)) {
      this.runDuration.observe({ schedule }, Math.max(0, durationSeconds));
    }
    // Clamped: a run adopted after a restart finishes without this process having started it.
    this.setRunning(schedule, Math.max(0, (this.running.get(schedule) ?? 0) - 1));
  }

  /** Sets the in-progress count outright, e.g. after adopting runs left by a previous daemon. */
  setRunning(schedule: string, count: number): void {
    this.running.set(schedule, count);
    this.runsRunning.set({ schedule }, count);
  }

  fireLateness(schedule: string, seconds: number): void {
    // A slot fired early (clock moved back) counts as on time rather than poisoning the sum.
    if (Number.isFinite(seconds)) this.lateness.observe({ schedule }, Math.max(0, seconds));
  }

  /**
   * What an ended run spent, per model its usage records name ("unknown" when they name none,
   * or for a terminal record's figures without usage records).
   */
  runSpent(schedule: string, spend: RunSpend): void {
    const byModel = spend.byModel ?? { unknown: { costUsd: spend.costUsd, tokens: spend.tokens } };
    for (const [model, m] of Object.entries(byModel)) {
      this.cost.inc({ schedule, model }, m.costUsd);
      this.tokens.inc({ schedule, model }, m.tokens);
    }
    if (spend.unpricedIterations > 0) this.unknownCost.inc({ schedule });
  }

  slotSkipped(schedule: string, cause: SkipCause): void {
    this.skipped.inc({ schedule, cause });
  }

  alertDelivery(channel: string, result: AlertDeliveryResult): void {
    this.alerts.inc({ channel, result });
  }

  /** The exposition text and the content type to serve it with. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
