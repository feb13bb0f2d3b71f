// The slot a Kubernetes Job runs, read from the Job's name (pure). The CronJob controller names
// each Job `<cronjob>-<scheduled time in minutes since the epoch>` and the Job controller puts
// that name on the Job's pods as a label, which the downward API hands to the container. The
// `batch.kubernetes.io/cronjob-scheduled-timestamp` annotation says the same, but it is on the
// Job only: a pod cannot read it without access to the Kubernetes API.
import { boundedInstant } from "../../util/instant.js";
import { cronJobName } from "./kubernetes-names.js";

/** The pod label holding its Job's name (set by the Job controller since Kubernetes 1.27). */
export const JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
/** The container's variable the downward API fills from JOB_NAME_LABEL. */
export const JOB_NAME_ENV = "AUTOLOOP_CRON_JOB_NAME";

export type JobSlot =
  | { kind: "scheduled"; slot: Date }
  /** A Job made by hand (`kubectl create job --from=cronjob/…`): a manual run, now. */
  | { kind: "unscheduled"; why: string };

/** The slot of the Job named `jobName`, made by the CronJob `export` writes for `schedule`. */
export function slotOfJob(schedule: string, jobName: string): JobSlot {
  const cronJob = cronJobName(schedule).name;
  const minutes = jobName.startsWith(`${cronJob}-`) ? jobName.slice(cronJob.length + 1) : "";
  const ms = /^\d{1,10}$/.test(minutes) ? boundedInstant(Number(minutes) * 60_000) : undefined;
  if (ms !== undefined) return { kind: "scheduled", slot: new Date(ms) };
  return {
    kind: "unscheduled",
    why: `Job "${jobName}" is not named "${cronJob}-<minutes since the epoch>" as its CronJob's Jobs are`,
  };
}
