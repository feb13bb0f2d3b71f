// The lines of deliveries.jsonl (a run's commits on their way to a pull request) and the pure
// replay that rebuilds the queue from them.
import * as z from "zod";
import { FORGES } from "../forge/forge.js";

const secretRef = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("env"), name: z.string() }),
  z.object({ kind: z.literal("file"), path: z.string() }),
]);

/** What is delivered, fixed when the run ended (the token by reference, read at each attempt). */
export const deliveryJobSchema = z.object({
  schedule: z.string(),
  runId: z.string(),
  /** The project's repository, which holds the run's commit. */
  repoDir: z.string(),
  sha: z.string().regex(/^[0-9a-f]{40,64}$/),
  /** `autoloop/<schedule>` on the remote; with `issueKey`, `autoloop/<schedule>/<issueKey>`. */
  branch: z.string(),
  /**
   * The issues the run took (`source`, `issue-42`): the branch and pull request are theirs, and
   * a delivery waits only for an earlier one of the same issues.
   */
  issueKey: z.string().optional(),
  /** The branch the pull request merges into; absent: the remote's HEAD branch, asked then. */
  base: z.string().optional(),
  remote: z.string(),
  forge: z.enum(FORGES),
  apiUrl: z.string(),
  repository: z.string().optional(),
  token: secretRef,
  title: z.string(),
  body: z.string(),
  draft: z.boolean(),
  labels: z.array(z.string()),
  reviewers: z.array(z.string()),
});
export type DeliveryJob = z.infer<typeof deliveryJobSchema>;

/** A review to post on pull request `number`, fixed when the run ended (`deliver.review`). */
export const reviewJobSchema = z.object({
  kind: z.literal("review"),
  schedule: z.string(),
  runId: z.string(),
  repoDir: z.string(),
  remote: z.string(),
  forge: z.enum(FORGES),
  apiUrl: z.string(),
  repository: z.string().optional(),
  token: secretRef,
  number: z.number().int().positive(),
  body: z.string(),
});
export type ReviewJob = z.infer<typeof reviewJobSchema>;

/** Every kind of delivery the queue carries (a pull request's lines name no kind). */
const queuedJobSchema = z.union([reviewJobSchema, deliveryJobSchema]);
export type QueuedJob = DeliveryJob | ReviewJob;

export const isReviewJob = (job: QueuedJob): job is ReviewJob =>
  "kind" in job && job.kind === "review";

/**
 * What one delivery at a time goes to: a schedule's pull request, or an issue's (a newer run's
 * takes the place of one not yet made), or its review of one pull request (others go on beside
 * it). A pull request's lane also keys the lease of its branch's next push.
 */
export function deliveryLane(job: QueuedJob): string {
  if (isReviewJob(job)) return `${job.schedule}#${job.number}`;
  return job.issueKey === undefined ? job.schedule : `${job.schedule}/${job.issueKey}`;
}

const base = { id: z.string(), at: z.string() };
const recordSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("enqueued"), ...base, job: queuedJobSchema }),
  /** The remote branch holds the job's commit (the API call may still be owed). */
  z.object({ type: z.literal("pushed"), ...base, sha: z.string() }),
  z.object({
    type: z.literal("attempt"),
    ...base,
    attempt: z.number().int().positive(),
    error: z.string(),
    nextAt: z.string(),
  }),
  z.object({
    type: z.literal("delivered"),
    ...base,
    action: z.enum(["opened", "updated"]),
    number: z.number().int(),
    url: z.string(),
    /** What could not be set on it (a label the repository lacks): delivered all the same. */
    warnings: z.array(z.string()).optional(),
  }),
  z.object({
    type: z.literal("dead"),
    ...base,
    error: z.string(),
    /** Given up on by a daemonless `fire`, which cannot page: the monitor pages it (`schedule`'s). */
    by: z.literal("fire").optional(),
    schedule: z.string().optional(),
  }),
  /** A newer run of the schedule took its place before it was delivered. */
  z.object({ type: z.literal("superseded"), ...base, by: z.string() }),
  /** The monitor is done with fire's `dead` line `id` (paged, or older than its watch). */
  z.object({ type: z.literal("paged"), ...base }),
  /** A compacted file's memory of what the daemon last pushed to lane `id`'s branch. */
  z.object({ type: z.literal("branch"), ...base, sha: z.string() }),
]);
export type DeliveryRecord = z.infer<typeof recordSchema>;
export type DeadRecord = Extract<DeliveryRecord, { type: "dead" }>;

export function parseDeliveryRecord(line: string): DeliveryRecord | undefined {
  try {
    const parsed = recordSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export interface PendingDelivery<J extends QueuedJob = QueuedJob> {
  id: string;
  job: J;
  enqueuedAt: number;
  failures: number;
  nextAt: number;
  pushed: boolean;
  lastError?: string;
}

/** How a run's delivery ended, for `runs show`, the status page and MCP. */
export type DeliveryResult =
  | { kind: "pending"; failures: number; lastError?: string }
  | {
      kind: "delivered";
      action: "opened" | "updated";
      number: number;
      url: string;
      warnings?: string[];
    }
  | { kind: "dead"; error: string }
  | { kind: "superseded"; by: string };

export interface DeliveryState {
  pending: Map<string, PendingDelivery>;
  /**
   * Per lane (a schedule, or its issue's `<schedule>/<key>`), the commit the daemon last pushed
   * to its branch: the lease of the next push.
   */
  lastPushed: Map<string, string>;
  /** Per run id, how its delivery ended. */
  results: Map<string, DeliveryResult>;
  /** The `dead` lines of a daemonless `fire` the monitor has not paged yet: compaction keeps them. */
  firedDead: Map<string, DeadRecord>;
}

export function emptyDeliveryState(): DeliveryState {
  return { pending: new Map(), lastPushed: new Map(), results: new Map(), firedDead: new Map() };
}

/** The state a file's records rebuild, in order. */
export function replayDeliveries(records: Iterable<DeliveryRecord>): DeliveryState {
  const state = emptyDeliveryState();
  for (const r of records) applyDeliveryRecord(state, r);
  return state;
}

const dueAt = (ms: number): number => (Number.isFinite(ms) ? ms : 0);

/** Applies one record; records about unknown or finished entries are ignored. */
export function applyDeliveryRecord(state: DeliveryState, r: DeliveryRecord): void {
  if (r.type === "enqueued") {
    if (state.pending.has(r.id) || state.results.has(r.id)) return;
    const at = Date.parse(r.at);
    state.pending.set(r.id, {
      id: r.id,
      job: r.job,
      enqueuedAt: at,
      failures: 0,
      nextAt: dueAt(at),
      pushed: false,
    });
    state.results.set(r.id, { kind: "pending", failures: 0 });
    return;
  }
  if (r.type === "branch") {
    state.lastPushed.set(r.id, r.sha);
    return;
  }
  // Kept apart from the entry: a compacted file holds the line without its `enqueued`.
  if (r.type === "dead" && r.by === "fire") state.firedDead.set(r.id, r);
  if (r.type === "paged") {
    state.firedDead.delete(r.id);
    return;
  }
  const entry = state.pending.get(r.id);
  if (entry === undefined) return;
  switch (r.type) {
    case "pushed":
      entry.pushed = true;
      state.lastPushed.set(deliveryLane(entry.job), r.sha);
      return;
    case "attempt":
      entry.failures = Math.max(entry.failures, r.attempt);
      entry.nextAt = dueAt(Date.parse(r.nextAt));
      entry.lastError = r.error;
      state.results.set(r.id, { kind: "pending", failures: entry.failures, lastError: r.error });
      return;
    case "delivered":
      state.results.set(r.id, {
        kind: "delivered",
        action: r.action,
        number: r.number,
        url: r.url,
        ...(r.warnings !== undefined && { warnings: r.warnings }),
      });
      break;
    case "dead":
      state.results.set(r.id, { kind: "dead", error: r.error });
      break;
    case "superseded":
      state.results.set(r.id, { kind: "superseded", by: r.by });
      break;
  }
  state.pending.delete(r.id);
}

/**
 * What the file (replayed by a compaction) tells a writer that other writers did: each
 * branch's last push, and the end of a delivery it still holds pending. Their pending jobs are
 * left to them (two processes would attempt one job at once); a restart takes them up.
 */
export function foldFileState(mine: DeliveryState, file: DeliveryState): void {
  for (const [lane, sha] of file.lastPushed) mine.lastPushed.set(lane, sha);
  for (const id of [...mine.pending.keys()]) {
    const result = file.results.get(id);
    if (result === undefined || result.kind === "pending") continue;
    mine.results.set(id, result);
    mine.pending.delete(id);
  }
}

/**
 * The lines that rebuild what `state` still needs: each branch's lease, the pending jobs, and
 * the `dead` lines of `fire` the monitor has yet to page.
 */
export function compactedDeliveryRecords(state: DeliveryState, at: string): DeliveryRecord[] {
  const out: DeliveryRecord[] = [];
  for (const [lane, sha] of state.lastPushed) out.push({ type: "branch", id: lane, at, sha });
  for (const p of state.pending.values()) {
    const { id, job } = p;
    out.push({ type: "enqueued", id, at: new Date(p.enqueuedAt).toISOString(), job });
    if (p.pushed && "sha" in job) out.push({ type: "pushed", id, at, sha: job.sha });
    if (p.failures > 0) {
      const nextAt = new Date(p.nextAt).toISOString();
      out.push({ type: "attempt", id, at, attempt: p.failures, error: p.lastError ?? "", nextAt });
    }
  }
  out.push(...state.firedDead.values());
  return out;
}
