// Field schemas shared by autoloop-cron.toml and schedules/*.toml, each with the wording
// its error message uses for "expected".
import * as z from "zod";
import { DURATION_HINT, parseDuration } from "../../util/duration.js";
import { CRON_HINT, cronProblem } from "../timing/cron.js";
import { isValidTimeZone } from "../timing/zone-clock.js";

export const OVERLAP_POLICIES = ["skip", "queue", "replace", "allow"] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];
export const CATCH_UP_MODES = ["none", "latest", "all"] as const;

/** A duration string in milliseconds, at least `minMs`. */
export function durationField(minMs = 0) {
  const hint = minMs > 0 ? `${DURATION_HINT}, greater than zero` : DURATION_HINT;
  return z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined || ms < minMs) {
      ctx.issues.push({ code: "custom", message: hint, input: text });
      return z.NEVER;
    }
    return ms;
  });
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
};
