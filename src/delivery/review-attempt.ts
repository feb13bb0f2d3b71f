// One attempt at posting a run's review: the schedule's earlier review of the pull request,
// found by its hidden marker, is edited in place; else a new one is posted. Safe to repeat
// after a crash: a review posted before the crash is found by its marker, not posted twice.
import { ForgeError, type ForgeOptions } from "../forge/forge.js";
import { repositoryOfUrl } from "../forge/remote.js";
import { REVIEW_CLIENTS, type ReviewForge, reviewMarker } from "../forge/review.js";
import { resolveSecret } from "../util/secrets.js";
import { type AttemptDeps, type AttemptResult, forgeErrorResult, ownRepoOf } from "./attempt.js";
import type { PendingDelivery, ReviewJob } from "./record.js";

export interface ReviewAttemptDeps extends Pick<AttemptDeps, "gitDir" | "onNotice"> {
  env?: NodeJS.ProcessEnv;
  reviewForges?: Partial<Record<string, (options: ForgeOptions) => ReviewForge>>;
}

export async function attemptReview(
  entry: PendingDelivery<ReviewJob>,
  deps: ReviewAttemptDeps,
): Promise<AttemptResult> {
  const { job } = entry;
  let token: string;
  try {
    token = resolveSecret(job.token, `schedule "${job.schedule}": deliver.review token`, {
      ...(deps.env !== undefined && { env: deps.env }),
    });
  } catch (err) {
    return { kind: "dead", error: (err as Error).message };
  }
  const own = job.repository === undefined ? await ownRepoOf(job, deps) : undefined;
  if (own?.kind === "failed") return { kind: "retry", error: own.detail };
  const repository = job.repository ?? repositoryOfUrl(own!.url);
  if (repository === undefined)
    return {
      kind: "dead",
      error: `the repository of remote ${job.remote} cannot be read from its URL: set deliver.review.repository = "owner/name"`,
    };
  const client = (deps.reviewForges?.[job.forge] ?? (await REVIEW_CLIENTS[job.forge]()))({
    apiUrl: job.apiUrl,
    repository,
    token,
  });
  try {
    const earlier = await client.findReview(job.number, reviewMarker(job.schedule));
    const updated = earlier && (await editIfOurs(client, job, earlier.id));
    if (updated !== undefined)
      return {
        kind: "delivered",
        action: "updated",
        number: job.number,
        url: updated.url,
        warnings: [],
      };
    const posted = await client.postReview(job.number, job.body);
    return {
      kind: "delivered",
      action: "opened",
      number: job.number,
      url: posted.url,
      warnings: [],
    };
  } catch (err) {
    return forgeErrorResult(err);
  }
}

/**
 * Edits the marked review; undefined when the forge refuses for good: anyone can write the
 * marker, and a review that is not the token's own is not the schedule's to edit (a new one
 * is posted, which the next run finds first, being the newest).
 */
async function editIfOurs(client: ReviewForge, job: ReviewJob, id: number) {
  try {
    return await client.updateReview(job.number, id, job.body);
  } catch (err) {
    if (err instanceof ForgeError && err.failure.kind === "permanent") return undefined;
    throw err;
  }
}
