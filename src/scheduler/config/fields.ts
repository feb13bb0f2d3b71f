// Field schemas shared by autoloop-cron.toml and schedules/*.toml, each with the wording
// its error message uses for "expected".
import * as z from "zod";
import { DURATION_HINT, parseDuration } from "../../util/duration.js";
import { CRON_HINT, cronProblem } from "../timing/cron.js";
import { isValidTimeZone } from "../timing/zone-clock.js";

export const OVERLAP_POLICIES = ["skip", "queue", "replace", "allow"] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];
export const CATCH_UP_MODES = ["none", "latest", "all"] as const;

/** The longest run heartbeat interval: a heartbeat saying "a year" must not keep a run alive. */
export const MAX_BEAT_INTERVAL_MS = 300_000;

/** A duration string in milliseconds from `minMs` to `maxMs`, else `message`. */
function durationWithin(minMs: number, maxMs: number, message: string) {
  return z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined || ms < minMs || ms > maxMs) {
      ctx.issues.push({ code: "custom", message, input: text });
      return z.NEVER;
    }
    return ms;
  });
}

/** A duration string in milliseconds, at least `minMs`. */
export function durationField(minMs = 0) {
  const hint = minMs > 0 ? `${DURATION_HINT}, greater than zero` : DURATION_HINT;
  return durationWithin(minMs, Number.POSITIVE_INFINITY, hint);
}

/** A duration string in milliseconds from `minMs` to `maxMs`; `range` words the bounds. */
export function boundedDuration(minMs: number, maxMs: number, range: string) {
  return durationWithin(minMs, maxMs, `a duration from ${range}`);
}

export const timezoneField = z.string().refine(isValidTimeZone, {
  message: 'an IANA time zone such as "UTC", "Europe/Berlin" or "America/New_York"',
});

export const cronField = z.string().check((ctx) => {
  const why = cronProblem(ctx.value);
  if (why !== undefined) {
    ctx.issues.push({ code: "custom", message: `${CRON_HINT} (${why})`, input: ctx.value });
  }
});

/** An argv array: a program and its arguments, never a shell string. */
export const argvField = z
  .array(z.string(), { error: "an array of strings: the program and its arguments" })
  .min(1)
  .refine((argv) => argv.length === 0 || argv[0]!.trim() !== "", {
    message: "a non-empty program name first",
  });

/** Names that end up in file paths and URLs: no slashes, no leading dot. */
export const SCHEDULE_NAME = /^[a-z0-9][a-z0-9-]*$/;
export function isScheduleName(name: string): boolean {
  return SCHEDULE_NAME.test(name) && name.length <= 63;
}
export const scheduleNameField = z.string().refine(isScheduleName, {
  message:
    'a name of lowercase letters, digits and "-", starting with a letter or digit, at most 63 characters',
});
export const CHANNEL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
export const channelNameField = z.string().refine((n) => CHANNEL_NAME.test(n) && n.length <= 63, {
  message:
    'a name of letters, digits, "_" and "-", starting with a letter or digit, at most 63 characters',
});

export const envNameField = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "an environment variable name" });
export const alertField = z.array(channelNameField);
export const envField = z.record(envNameField, z.string());

/** Monitor thresholds, as written in [monitor] and [schedule.monitor]. */
export const monitorThresholds = {
  gate_rejections: z.number().int().min(1).optional(),
  gate_grace: durationField().optional(),
  stall_after: durationField(1000).optional(),
  /** A slot whose run has not begun this long after its time is missed (no daemon: Kubernetes, timers). */
  missed_grace: durationField(1000).optional(),
  /**
   * A run that cost more than this many times the median of its schedule's last `cost_runs`
   * runs is news (`run_costly`); off unless set.
   */
  cost_factor: z
    .number({ error: "a number greater than 1, such as 3 (off unless set)" })
    .gt(1, "a number greater than 1, such as 3 (off unless set)")
    .optional(),
  cost_runs: z
    .number()
    .int("a whole number of runs, 3 or more")
    .min(3, "a whole number of runs, 3 or more")
    .max(100, "at most 100 runs")
    .optional(),
};

/** An amount of US dollars greater than zero: a number, never a string with a currency. */
const usdAmount = z.unknown().transform((value, ctx) => {
  if (typeof value === "number" && Number.isFinite(value) && value > 0) return value;
  const message =
    typeof value === "string"
      ? "a number of US dollars, such as 20.0 (budgets are in USD: write the number alone, without quotes, a $ sign or a currency)"
      : "a number of US dollars greater than 0, such as 20.0 (leave the key out for no limit)";
  ctx.issues.push({ code: "custom", message, input: value });
  return z.NEVER;
});
const tokenAmount = z.unknown().transform((value, ctx) => {
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  const message =
    typeof value === "number" && value <= 0
      ? "a number of tokens greater than 0 (leave the key out for no limit)"
      : "a whole number of tokens, such as 2000000";
  ctx.issues.push({ code: "custom", message, input: value });
  return z.NEVER;
});

/**
 * A schedule's budget, as written in a schedule or [defaults]: US dollars per run, per day and
 * per month, and the same in tokens (for agents whose price is unknown). At least one key.
 */
export const budgetField = z
  .strictObject({
    per_run: usdAmount.optional(),
    per_day: usdAmount.optional(),
    per_month: usdAmount.optional(),
    tokens_per_run: tokenAmount.optional(),
    tokens_per_day: tokenAmount.optional(),
    tokens_per_month: tokenAmount.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message:
      "at least one of per_run, per_day, per_month (US dollars) or tokens_per_run, tokens_per_day, tokens_per_month",
  });
export type BudgetEntry = z.output<typeof budgetField>;

/**
 * What a schedule's runs may spend (`budget`), in US dollars and in tokens: per run, and per
 * day and month of the schedule's time zone. Unset keys do not limit.
 */
export interface ScheduleBudget {
  perRunUsd?: number;
  perDayUsd?: number;
  perMonthUsd?: number;
  perRunTokens?: number;
  perDayTokens?: number;
  perMonthTokens?: number;
}

/** A `budget` as written, as a schedule holds it. */
export function budgetOf(b: BudgetEntry): ScheduleBudget {
  const budget: ScheduleBudget = {};
  if (b.per_run !== undefined) budget.perRunUsd = b.per_run;
  if (b.per_day !== undefined) budget.perDayUsd = b.per_day;
  if (b.per_month !== undefined) budget.perMonthUsd = b.per_month;
  if (b.tokens_per_run !== undefined) budget.perRunTokens = b.tokens_per_run;
  if (b.tokens_per_day !== undefined) budget.perDayTokens = b.tokens_per_day;
  if (b.tokens_per_month !== undefined) budget.perMonthTokens = b.tokens_per_month;
  return budget;
}

/** What a failed run's end is, for `retry.on`: the classes a schedule may retry. */
export const RETRY_CLASSES = ["rate_limited", "transient", "timed_out", "failed"] as const;
export type RetryClass = (typeof RETRY_CLASSES)[number];

const RETRY_ATTEMPTS_HINT =
  "a whole number of attempts in all, from 1 (no retry: a schedule's way out of [defaults]'s) to 10";

/**
 * A schedule's retries, as written: `retry = { attempts = 3, delay = "10m", on = [...], page =
 * "last" }`. `attempts` counts the first run; `delay` is the first retry's wait, doubled for
 * each one after; a `rate_limited` run waits for the time its agent named instead.
 */
export const retryField = z.strictObject({
  attempts: z.unknown().transform((value, ctx) => {
    if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 10)
      return value;
    ctx.issues.push({ code: "custom", message: RETRY_ATTEMPTS_HINT, input: value });
    return z.NEVER;
  }),
  delay: durationField(1000).default(300_000),
  on: z
    .array(z.enum(RETRY_CLASSES), {
      error: `a list of what to retry, from ${RETRY_CLASSES.map((c) => `"${c}"`).join(", ")}`,
    })
    .min(1, 'at least one class to retry, such as ["rate_limited", "transient"]')
    .default(["rate_limited", "transient"]),
  page: z.enum(["first", "last"]).default("last"),
});
export type RetryEntry = z.output<typeof retryField>;

/** A schedule's retry policy, as the scheduler and the monitor hold it. */
export interface RetryPolicy {
  /** Attempts in all, the first run included (2 to 10; 1 is no policy at all). */
  attempts: number;
  /** The first retry's wait; each later one waits twice the one before. */
  delayMs: number;
  on: readonly RetryClass[];
  /** Page when the first attempt fails, or only when the last one does (the default). */
  page: "first" | "last";
}

/** The policy `retry` says; undefined for `attempts = 1` (no retry). */
export function retryOf(r: RetryEntry): RetryPolicy | undefined {
  if (r.attempts < 2) return undefined;
  return { attempts: r.attempts, delayMs: r.delay, on: r.on, page: r.page };
}

/**
 * An event trigger (`hook`): `POST /hooks/<schedule>` on the daemon's HTTP server fires the
 * schedule now, signed with the schedule's own secret: Standard Webhooks (`whsec_...`), or
 * GitHub's `X-Hub-Signature-256` for a repository's webhook.
 */
export const hookField = z
  .strictObject({
    secret_env: envNameField.optional(),
    secret_file: z.string().min(1).optional(),
    format: z.enum(["standard", "github"]).default("standard"),
    /** The largest body taken, in bytes (a larger one is refused: 413). */
    max_bytes: z
      .number({ error: "a whole number of bytes from 1024 to 5242880, such as 262144" })
      .int("a whole number of bytes from 1024 to 5242880, such as 262144")
      .min(1024, "a whole number of bytes from 1024 to 5242880, such as 262144")
      .max(5 * 1024 * 1024, "a whole number of bytes from 1024 to 5242880, such as 262144")
      .default(256 * 1024),
    /** Requests taken per minute; more are refused (429) until the minute has passed. */
    per_minute: z
      .number({ error: "a whole number of requests per minute from 1 to 600, such as 6" })
      .int("a whole number of requests per minute from 1 to 600, such as 6")
      .min(1, "a whole number of requests per minute from 1 to 600, such as 6")
      .max(600, "a whole number of requests per minute from 1 to 600, such as 6")
      .default(6),
  })
  .refine((h) => (h.secret_env === undefined) !== (h.secret_file === undefined), {
    message:
      "exactly one of secret_env or secret_file: the schedule's own webhook secret (never written into the file)",
  });
export type HookEntry = z.output<typeof hookField>;
