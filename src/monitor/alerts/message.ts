// The alert the monitor hands to the outbox: what happened, where, and what to type next.
// Defined as a zod schema because the outbox stores it on disk and reads it back.
import { nanoid } from "nanoid";
import * as z from "zod";
import { hexDigest } from "../../util/digest.js";
import { ALERT_KINDS } from "./alert-kinds.js";
import { digestReportSchema } from "./digest-report.js";

/** `acknowledged` goes only to the paging services (PagerDuty, Opsgenie), to keep them in step. */
export const ALERT_STATUSES = ["firing", "resolved", "reminder", "acknowledged"] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

const gateSchema = z.object({
  topic: z.string(),
  openTasks: z.array(z.object({ id: z.string(), text: z.string() })),
  /** How many times the completion gate refused. */
  refusals: z.number(),
  /** ISO time of the first refusal. */
  since: z.string(),
});

export const alertMessageSchema = z.object({
  /** Stable per incident (e.g. `run_failed:nightly-fix:run-…`); threads mails together. */
  fingerprint: z.string().min(1),
  kind: z.enum(ALERT_KINDS),
  status: z.enum(ALERT_STATUSES),
  /** 1, 2, … for status "reminder". */
  reminder: z.number().int().positive().optional(),
  title: z.string(),
  summary: z.string(),
  schedule: z.string().optional(),
  preset: z.string().optional(),
  runId: z.string().optional(),
  objective: z.string().optional(),
  gate: gateSchema.optional(),
  /** IANA zone of the schedule; times are shown in it and in UTC. */
  timezone: z.string(),
  /** ISO time of the event the alert is about. */
  occurredAt: z.string(),
  journalPath: z.string().optional(),
  /** The last ~15 journal lines, raw; redacted before they leave the process. */
  journalTail: z.array(z.string()),
  /** Exact shell commands to copy. */
  commands: z.object({
    inspect: z.string().optional(),
    ack: z.string().optional(),
    stop: z.string().optional(),
    /** How to answer the question a run waits on, or guide it. */
    answer: z.string().optional(),
    guide: z.string().optional(),
    /** Closes the open task a live run is stuck on at its gate. */
    task: z.string().optional(),
  }),
  incident: z.object({ slug: z.string(), id: z.string() }).optional(),
  /** What the run spent so far, from its `backend.usage` records (unknown cost counted apart). */
  cost: z
    .object({
      usd: z.number().nonnegative(),
      tokens: z.number().nonnegative(),
      iterations: z.number().int().nonnegative(),
      /** Iterations whose cost is unknown (no usage reported, or no price for the model). */
      unknownIterations: z.number().int().nonnegative(),
    })
    .optional(),
  detail: z.string().optional(),
  /** The on-call group: every run of a schedule failing one way, or one run started by hand. */
  group: z
    .object({
      by: z.enum(["schedule", "run"]),
      /** The group's kind of trouble (a run that stopped at its gate joins its gate alert's group). */
      kind: z.string(),
      /** Failed runs in a row since the schedule's last completed run. */
      consecutiveFailures: z.number().int().nonnegative(),
      failingSince: z.string(),
      /** The group's runs, newest first, one line each. */
      runs: z.array(z.string()),
    })
    .optional(),
  /** A run's end on a schedule that retries: its attempt of the slot and every attempt so far. */
  retry: z
    .object({
      attempt: z.number().int().positive(),
      of: z.number().int().positive(),
      /** When the next attempt starts (ISO), when one is owed (`page = "first"`). */
      nextAt: z.string().optional(),
      /** The slot's attempts, the first first, one line each. */
      attempts: z.array(z.string()),
    })
    .optional(),
  /**
   * The pull request of the run (or, when it delivered none, of its schedule's latest run that
   * did), from the daemon's ledger: where the run's work waits for review.
   */
  pullRequest: z.string().optional(),
  /** For resolved: what ended it ("run X completed", "schedule removed from the config"). */
  resolution: z.string().optional(),
  /** For delivery_failed: the channel that failed, which this alert is never sent to. */
  failedChannel: z.string().optional(),
  /** For kind digest: what the period's runs did (rendered by digest-render.ts, digest-chat.ts). */
  digest: digestReportSchema.optional(),
});
export type AlertMessage = z.infer<typeof alertMessageSchema>;
export type GateInfo = z.infer<typeof gateSchema>;

/** A fresh message id: one per enqueued alert, kept across every retry and restart. */
export function newMessageId(): string {
  return nanoid();
}

const ID_DOMAIN = "autoloop-cron";

/** The Message-ID header value of a message id. */
export function messageIdHeader(messageId: string): string {
  return `<${messageId}@${ID_DOMAIN}>`;
}

/**
 * The thread root every mail of one incident replies to. No mail carries it as its own
 * Message-ID; clients still thread on the shared reference.
 */
export function threadRootHeader(fingerprint: string): string {
  const hash = hexDigest("sha256", fingerprint).slice(0, 24);
  return `<incident-${hash}@${ID_DOMAIN}>`;
}

/** The message `alert test` sends. */
export function testAlertMessage(now: Date, timezone = "UTC"): AlertMessage {
  return {
    fingerprint: `test:${now.toISOString()}`,
    kind: "test",
    status: "firing",
    title: "Test alert from autoloop-cron",
    summary: "If you can read this, the channel works. Nothing needs your attention.",
    timezone,
    occurredAt: now.toISOString(),
    journalTail: [],
    commands: { inspect: "autoloop-cron status" },
  };
}
