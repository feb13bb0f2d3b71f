// `[[digest]]`: a summary of what the runs did, sent at its cron to named channels; the
// schema as written and its check against the `[[channel]]`s (a digest is news, never a page).

import * as z from "zod";
import type { FieldProblem } from "../../util/errors.js";
import type { ChannelConfig } from "./channels.js";
import { channelNameField, cronField, scheduleNameField, timezoneField } from "./fields.js";

export const digestSchema = z.strictObject({
  name: channelNameField,
  cron: cronField,
  timezone: timezoneField.optional(),
  channels: z.array(channelNameField).min(1, "at least one [[channel]] name"),
  /** Only these schedules; [] for every schedule. */
  schedules: z.array(scheduleNameField).default([]),
});

export interface DigestConfig {
  name: string;
  cron: string;
  /** The zone its cron and its times are read in ([defaults] timezone unless set). */
  timezone: string;
  channels: string[];
  /** [] covers every schedule. */
  schedules: string[];
}

/** Paging services open incidents: a digest is refused them. */
const PAGING: ReadonlySet<ChannelConfig["type"]> = new Set(["pagerduty", "opsgenie"]);

export function resolveDigests(
  raw: z.output<typeof digestSchema>[],
  channels: readonly ChannelConfig[],
  defaultTimezone: string,
  fileName: string,
  problems: FieldProblem[],
): DigestConfig[] {
  const byName = new Map(channels.map((c) => [c.name, c]));
  const seen = new Set<string>();
  raw.forEach((d, i) => {
    if (seen.has(d.name))
      problems.push({
        file: fileName,
        field: `digest[${i}].name`,
        found: JSON.stringify(d.name),
        expected: "a name no other [[digest]] has (its last send is kept by name)",
      });
    seen.add(d.name);
    d.channels.forEach((name, j) => {
      const channel = byName.get(name);
      if (channel === undefined || !PAGING.has(channel.type)) return;
      problems.push({
        file: fileName,
        field: `digest[${i}].channels[${j}]`,
        found: `${JSON.stringify(name)} (a ${channel.type} channel)`,
        expected:
          "an email, webhook, command or sink channel: a paging service would open an incident for the digest",
      });
    });
  });
  return raw.map((d) => ({
    name: d.name,
    cron: d.cron,
    timezone: d.timezone ?? defaultTimezone,
    channels: d.channels,
    schedules: d.schedules,
  }));
}

/**
 * `validate`'s warnings for digest `schedules` that name no valid schedule: the digest still
 * goes out, without them (a schedule added later, or a typo).
 */
export function unknownDigestSchedules(
  digests: readonly DigestConfig[],
  scheduleNames: ReadonlySet<string>,
  fileName: string,
): FieldProblem[] {
  return digests.flatMap((d, i) =>
    d.schedules.flatMap((name, j) =>
      scheduleNames.has(name)
        ? []
        : [
            {
              file: fileName,
              field: `digest[${i}].schedules[${j}]`,
              found: JSON.stringify(name),
              expected: "the name of a valid schedule (see `autoloop-cron list`)",
            },
          ],
    ),
  );
}
