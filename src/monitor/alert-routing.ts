// Which channels an alert goes to: a schedule's own, else the monitor's, else every channel;
// an acknowledgement only to the paging services, which keep their alert in step with ours.
import type { CronConfig } from "../scheduler/config/config.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";

/** Where a schedule's alerts go: its `alert`, else `[monitor] alert`, else every channel. */
export function channelsFor(
  config: CronConfig,
  available: readonly string[],
  schedule: Schedule | undefined,
): string[] {
  const own = schedule?.alert ?? [];
  const wanted = own.length > 0 ? own : config.monitor.alert;
  const known = wanted.filter((name) => available.includes(name));
  return known.length > 0 ? known : [...available];
}

/** The configured paging services (PagerDuty, Opsgenie): the only channels told of acks. */
export function pagingChannels(config: CronConfig): string[] {
  return config.channels
    .filter((c) => c.type === "pagerduty" || c.type === "opsgenie")
    .map((c) => c.name);
}
