// What the daemon asks of a forge for a review: the pull request a run was fired for (its head,
// whether it comes from a fork, its text) and the one review it keeps on it, posted once and
// edited in place by later runs. One module per forge implements it with that forge's client.
import type { ForgeKind, ForgeOptions } from "./forge.js";

/** A pull request (GitLab: merge request) as a review run needs it. */
export interface PullUnderReview {
  number: number;
  url: string;
  /** The commit its head points at, as the forge answered. */
  headSha: string;
  /** True when its head is in another repository (a fork's pull request). */
  fromFork: boolean;
  /** The head repository, for the words of a refusal. */
  headRepository: string;
  /** The author's text: data for the reviewer, never instructions. */
  title: string;
  body: string;
}

/** The review the daemon keeps on a pull request. */
export interface ReviewRef {
  id: number;
  url: string;
}

export interface ReviewForge {
  pull(number: number): Promise<PullUnderReview>;
  /** The newest review (note, comment) whose body holds `marker`, if one was posted. */
  findReview(number: number, marker: string): Promise<ReviewRef | undefined>;
  postReview(number: number, body: string): Promise<ReviewRef>;
  updateReview(number: number, id: number, body: string): Promise<ReviewRef>;
}

/** The ref a forge keeps each pull request's head under, fetchable by anyone who can read. */
export function pullHeadRef(forge: ForgeKind, number: number): string {
  return forge === "gitlab" ? `refs/merge-requests/${number}/head` : `refs/pull/${number}/head`;
}

/** The hidden line that marks a schedule's review, so the next run edits it. */
export const reviewMarker = (schedule: string) => `<!-- autoloop-cron:review:${schedule} -->`;

type ReviewClient = (options: ForgeOptions) => ReviewForge;

/** Each forge's review client, loaded on its first use (the clients are large). */
export const REVIEW_CLIENTS: Record<ForgeKind, () => Promise<ReviewClient>> = {
  github: async () => (await import("./github-review.js")).githubReviews,
  gitlab: async () => (await import("./gitlab-review.js")).gitlabReviews,
  gitea: async () => (await import("./gitea-review.js")).giteaReviews,
};
