// Kubernetes object names from schedule names: DNS-1123 labels, short enough for a CronJob.
import { createHash } from "node:crypto";

/**
 * A CronJob's name can have at most 52 characters: Kubernetes appends 11 to name its Jobs
 * and the result must fit a 63-character label.
 */
export const CRONJOB_NAME_MAX = 52;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function isDnsLabel(name: string, max = 63): boolean {
  return name.length <= max && DNS_LABEL.test(name);
}

/**
 * The CronJob name for a schedule: the name itself when valid, else a prefix plus a short hash
 * of the full name (so two long names that share a prefix still differ), and a note saying so.
 */
export function cronJobName(schedule: string): { name: string; note: string | undefined } {
  if (isDnsLabel(schedule, CRONJOB_NAME_MAX)) return { name: schedule, note: undefined };
  const hash = createHash("sha256").update(schedule).digest("hex").slice(0, 6);
  const prefix = schedule.slice(0, CRONJOB_NAME_MAX - hash.length - 1).replace(/-+$/, "");
  const name = `${prefix}-${hash}`;
  const why =
    schedule.length > CRONJOB_NAME_MAX
      ? `has ${schedule.length} characters and a CronJob name at most ${CRONJOB_NAME_MAX}`
      : "ends with a dash, which a Kubernetes name cannot";
  return { name, note: `schedule "${schedule}" ${why}: its CronJob is named "${name}"` };
}
