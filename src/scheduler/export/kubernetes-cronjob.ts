// One batch/v1 CronJob per schedule (pure): Kubernetes fires the slots, and each Job runs one
// slot in the foreground with `autoloop-cron fire`, sharing the volume with the monitor.
import { AGENT_RETRY_WAIT_CAP_MS } from "../retry/plan.js";
import type { Schedule } from "../schedules/schedule-file.js";
import type { Translation } from "./cron-fields.js";
import { JOB_NAME_ENV, JOB_NAME_LABEL } from "./kubernetes-job-slot.js";
import { cronJobName } from "./kubernetes-names.js";
import {
  type AccessMode,
  baseContainer,
  CONFIG_FILE_IN_POD,
  type ConfigItem,
  commonLabels,
  NAMES,
  podSecurityContext,
  podVolumes,
  sameNodeAsMonitor,
  TERMINATION_GRACE_SECONDS,
} from "./kubernetes-pod.js";
import { toKubernetesSchedule } from "./kubernetes-schedule.js";
import { TIMEOUT_MARGIN_MS } from "./systemd-units.js";

export interface PodOptions {
  image: string;
  namespace: string | undefined;
  configItems: ConfigItem[];
  accessMode: AccessMode;
}

const CONCURRENCY = {
  skip: "Forbid",
  queue: "Forbid",
  allow: "Allow",
  replace: "Replace",
} as const;

/** With catch_up = "none" a slot may still start this late (the controller polls every 10 s). */
export const NO_CATCH_UP_DEADLINE_SECONDS = 60;

export interface CronJobDoc {
  /** The object's name (the schedule's, shortened when it must be). */
  name: string;
  object: Record<string, unknown>;
  /** Lines for a comment above the object: what did not carry over, and why. */
  comments: string[];
  /** Worth telling the person exporting (a renamed object). */
  warning: string | undefined;
}

export function startingDeadlineSeconds(s: Schedule): number {
  if (s.catchUp.mode === "none") return NO_CATCH_UP_DEADLINE_SECONDS;
  return Math.max(10, Math.round(s.catchUp.windowMs / 1000));
}

/**
 * The longest a slot's Job can take: its jitter, every attempt to its timeout and the waits
 * between them (a rate-limited run's as long as its agent may ask). Kubernetes ends the Job
 * then (activeDeadlineSeconds), a backstop: autoloop-cron ends each run at its timeout itself.
 */
export function slotDeadlineMs(s: Schedule): number {
  const attempts = s.retry?.attempts ?? 1;
  let waits = 0;
  for (let retry = 1; retry < attempts; retry++) {
    const backoff = s.retry!.delayMs * 2 ** (retry - 1);
    const rateLimited = s.retry!.on.includes("rate_limited");
    waits += rateLimited ? Math.max(backoff, AGENT_RETRY_WAIT_CAP_MS) : backoff;
  }
  return s.jitterMs + attempts * (s.timeoutMs + TIMEOUT_MARGIN_MS) + waits;
}

/**
 * The pod's Job name, through the downward API: `fire` reads its slot from it (the Job's own
 * scheduled-timestamp annotation is not on the pod), so two Jobs for one time claim one slot.
 */
const JOB_NAME_FROM_POD = {
  name: JOB_NAME_ENV,
  valueFrom: { fieldRef: { fieldPath: `metadata.labels['${JOB_NAME_LABEL}']` } },
};

function notes(s: Schedule, deadline: number): string[] {
  const out: string[] = [];
  if (s.overlap === "queue") {
    out.push('overlap = "queue": Kubernetes has no queue, so a slot that comes due while a run');
    out.push("is still active is skipped (concurrencyPolicy: Forbid).");
  }
  if (s.catchUp.mode === "none") {
    out.push(`catch_up = "none": a slot that cannot start within ${deadline} s is skipped.`);
  } else {
    out.push(`catch_up = "latest": Kubernetes starts the most recent missed slot, and only`);
    out.push(`when it is at most ${deadline} s (catch_up_window) late.`);
  }
  if (s.jitterMs > 0) out.push("jitter: the pod waits its slot's jitter before the run starts.");
  if (s.retry !== undefined) {
    out.push(
      `retry: the pod runs up to ${s.retry.attempts} attempts, each claimed under its own key;`,
    );
    out.push("a retry pending when the pod is deleted is lost (Kubernetes does not restart it).");
  }
  return out;
}

function withJobName<C extends { env: object[] }>(container: C): C {
  return { ...container, env: [...container.env, JOB_NAME_FROM_POD] };
}

export function cronJob(s: Schedule, o: PodOptions): Translation<CronJobDoc> {
  const schedule = toKubernetesSchedule(s.cron);
  if (schedule.kind === "refused") return schedule;
  const { name, note } = cronJobName(s.name);
  const labels = { ...commonLabels("schedule"), "autoloop-cron/schedule": name };
  const deadline = startingDeadlineSeconds(s);
  const args = ["autoloop-cron", "fire", "--foreground", s.name, "--config", CONFIG_FILE_IN_POD];
  const annotations: Record<string, string> = { "autoloop-cron/cron": s.cron };
  if (name !== s.name) annotations["autoloop-cron/schedule-name"] = s.name;
  if (s.overlap === "queue") {
    annotations["autoloop-cron/overlap"] =
      "queue: Kubernetes has no queue; overlapping slots are skipped";
  }
  const object = {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name, ...(o.namespace ? { namespace: o.namespace } : {}), labels, annotations },
    spec: {
      schedule: schedule.value,
      timeZone: s.timezone,
      concurrencyPolicy: CONCURRENCY[s.overlap],
      startingDeadlineSeconds: deadline,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 5,
      jobTemplate: {
        metadata: { labels },
        spec: {
          // A failed run is reported by autoloop-cron, and retried by it (`retry`) under the
          // attempt's own claim; a Job Kubernetes re-ran would only find its slot claimed.
          backoffLimit: 0,
          // autoloop-cron enforces the timeout itself and records why; this is the backstop.
          activeDeadlineSeconds: Math.ceil(slotDeadlineMs(s) / 1000),
          template: {
            metadata: { labels },
            spec: {
              restartPolicy: "Never",
              terminationGracePeriodSeconds: TERMINATION_GRACE_SECONDS,
              securityContext: podSecurityContext,
              // Runs get the agents' credentials, never the alert channels' secrets.
              containers: [
                withJobName(baseContainer("autoloop-cron", o.image, args, NAMES.agentSecret)),
              ],
              volumes: podVolumes(o.configItems),
              ...sameNodeAsMonitor(o.accessMode),
            },
          },
        },
      },
    },
  };
  const header = `Generated by \`autoloop-cron export kubernetes\` from ${s.file} (schedule "${s.name}").`;
  return {
    kind: "ok",
    value: { name, object, comments: [header, ...notes(s, deadline)], warning: note },
  };
}
