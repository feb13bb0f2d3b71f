// The autoloop-cron.toml schema as written (snake_case), with every default documented.
import * as z from "zod";
import { channelSchema } from "./channels.js";
import { digestSchema } from "./digests.js";
import {
  alertField,
  argvField,
  boundedDuration,
  channelNameField,
  cronField,
  durationField,
  envNameField,
  MAX_BEAT_INTERVAL_MS,
  monitorThresholds,
  scheduleNameField,
  timezoneField,
} from "./fields.js";
import { haSchema } from "./ha.js";
import { defaultsSchema } from "./schedule-keys.js";

const DAY = 86_400_000;

/** How long a kind of state is kept: a duration of at least an hour, or "forever" (Infinity). */
const retentionField = z.union([
  z.literal("forever").transform(() => Infinity),
  durationField(3_600_000),
]);

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/**
 * The config file. Every key is optional; defaults:
 * state_dir ".autoloop-cron", schedules_dir "schedules", presets_dir "presets" (relative to the
 * config file's folder), harness: the bundled `autoloop` CLI, max_concurrent_runs 4,
 * on_shutdown "terminate", shutdown_grace "30s", log_level "info", no heartbeat,
 * heartbeat_interval "5m", run_heartbeat_interval "10s", [http] listen "127.0.0.1:9464" ("" disables),
 * [defaults]: see SCHEDULE_KEYS (schedule-keys.ts), [monitor] journals [],
 * gate_rejections 3, gate_grace "30m", stall_after "20m", alert: every channel, no channels,
 * [retention] runs "90d", output "30d", history "7d", [ha] no lease (one daemon, no standby).
 */
export const configSchema = z.strictObject({
  state_dir: z.string().min(1).default(".autoloop-cron"),
  schedules_dir: z.string().min(1).default("schedules"),
  presets_dir: z.string().min(1).default("presets"),
  harness: argvField.optional(),
  max_concurrent_runs: z.number().int().min(1).default(4),
  on_shutdown: z.enum(["terminate", "detach"]).default("terminate"),
  shutdown_grace: durationField().default(30_000),
  log_level: z.enum(LOG_LEVELS).default("info"),
  heartbeat_url: z.url().optional(),
  heartbeat_url_env: envNameField.optional(),
  heartbeat_url_file: z.string().min(1).optional(),
  heartbeat_interval: durationField(1000).default(300_000),
  /** Runs on other hosts are alive while their launcher's heartbeat is this fresh (x3). */
  run_heartbeat_interval: boundedDuration(
    100,
    MAX_BEAT_INTERVAL_MS,
    '"100ms" to "5m", such as "10s"',
  ).default(10_000),
  http: z
    .strictObject({
      listen: z.string().default("127.0.0.1:9464"),
      status_page: z.boolean().optional(),
      actions: z.boolean().optional(),
      hosts: z
        .array(z.string().regex(/^[A-Za-z0-9.-]+$/, "a host name such as cron.example.com"))
        .default([]),
      /** Where people reach the page (behind a proxy): links to runs in pull requests use it. */
      public_url: z
        .url({ protocol: /^https?$/, error: "an http(s) address such as https://cron.example.com" })
        .optional(),
    })
    .prefault({}),
  /** Every schedule's settings unless it has its own (schedule-keys.ts: keys and defaults). */
  defaults: defaultsSchema.prefault({}),
  /** A standby daemon on the same state dir: the one holding the lease fires (docs/standby.md). */
  ha: haSchema,
  monitor: z
    .strictObject({
      journals: z.array(z.string().min(1)).default([]),
      ...monitorThresholds,
      alert: alertField.optional(),
    })
    .prefault({}),
  retention: z
    .strictObject({
      runs: retentionField.default(90 * DAY),
      output: retentionField.default(30 * DAY),
      history: retentionField.default(7 * DAY),
    })
    .prefault({}),
  channel: z.array(channelSchema).default([]),
  /** Summaries of what the runs did, at their own cron (none by default). */
  digest: z.array(digestSchema).default([]),
  /** Recurring maintenance windows: alerts matching one wait until it ends (none by default). */
  silence: z
    .array(
      z.strictObject({
        name: channelNameField,
        cron: cronField,
        duration: durationField(60_000),
        timezone: timezoneField.optional(),
        /** Only these schedules' alerts; [] for every schedule's (and the others'). */
        schedules: z.array(scheduleNameField).default([]),
        /** Only these kinds (run_failed, run_stalled, schedule_trouble, ...); [] for every kind. */
        kinds: z
          .array(z.string().regex(/^[a-z_]+$/, "an alert kind such as run_failed"))
          .default([]),
        comment: z.string().max(500).optional(),
      }),
    )
    .default([]),
});

export type LogLevel = (typeof LOG_LEVELS)[number];
export type RawConfig = z.output<typeof configSchema>;
