// Gauges read at scrape time from functions the daemon supplies, so values are never stale.
import { Gauge, type Registry } from "prom-client";

/** Each provider is read on every scrape; keep them cheap (in-memory state, no disk). */
export interface MetricsProviders {
  outbox?: () => { backlog: number; dead: number };
  journals?: () => ReadonlyArray<{ path: string; lagBytes: number }>;
  schedulesLoaded?: () => number;
  invalidScheduleFiles?: () => number;
  openIncidents?: () => number;
  /** Epoch milliseconds of the scheduler's last tick; undefined before the first. */
  lastTickAt?: () => number | undefined;
}

type ProviderName = keyof MetricsProviders;

interface GaugeSpec {
  name: string;
  help: string;
  labelNames?: string[];
  provider: ProviderName;
  /** Writes the provider's current value into the gauge. */
  read: (providers: MetricsProviders, gauge: Gauge) => void;
}

const SPECS: GaugeSpec[] = [
  {
    name: "autoloop_cron_outbox_backlog",
    help: "Alerts waiting in the outbox (pending or in flight).",
    provider: "outbox",
    read: (p, g) => g.set(p.outbox!().backlog),
  },
  {
    name: "autoloop_cron_outbox_dead_letters",
    help: "Alerts the outbox gave up delivering.",
    provider: "outbox",
    read: (p, g) => g.set(p.outbox!().dead),
  },
  {
    name: "autoloop_cron_journal_lag_bytes",
    help: "Bytes of a followed journal not yet read by the monitor.",
    labelNames: ["journal"],
    provider: "journals",
    read: (p, g) => {
      // Reset first so a journal that is no longer followed drops out of the output.
      g.reset();
      for (const j of p.journals!()) g.set({ journal: j.path }, j.lagBytes);
    },
  },
  {
    name: "autoloop_cron_schedules_loaded",
    help: "Valid schedules the daemon is serving.",
    provider: "schedulesLoaded",
    read: (p, g) => g.set(p.schedulesLoaded!()),
  },
  {
    name: "autoloop_cron_schedules_invalid_files",
    help: "Schedule files skipped because they did not validate.",
    provider: "invalidScheduleFiles",
    read: (p, g) => g.set(p.invalidScheduleFiles!()),
  },
  {
    name: "autoloop_cron_open_incidents",
    help: "Incidents raised by the monitor and not yet resolved.",
    provider: "openIncidents",
    read: (p, g) => g.set(p.openIncidents!()),
  },
  {
    name: "autoloop_cron_last_tick_timestamp_seconds",
    help: "Unix time of the scheduler's last tick (0 before the first); alert on its age.",
    provider: "lastTickAt",
    read: (p, g) => {
      const at = p.lastTickAt!();
      g.set(at === undefined ? 0 : at / 1000);
    },
  },
];

/** Registers the gauges of every provider set in `providers()` and not registered yet. */
export function registerProviderGauges(
  registry: Registry,
  providers: () => MetricsProviders,
): void {
  for (const spec of SPECS) {
    if (providers()[spec.provider] === undefined) continue;
    if (registry.getSingleMetric(spec.name) !== undefined) continue;
    new Gauge({
      name: spec.name,
      help: spec.help,
      labelNames: spec.labelNames ?? [],
      registers: [registry],
      collect() {
        try {
          spec.read(providers(), this);
        } catch {
          // A broken provider must not fail the whole scrape, nor leave a stale value that
          // looks current: NaN says "unknown" and makes `absent`-style alerts easy to write.
          this.reset();
          if (spec.labelNames === undefined) this.set(Number.NaN);
        }
      },
    });
  }
}
