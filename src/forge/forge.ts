// What the daemon asks of a forge (GitHub, GitLab, Gitea): find the open pull request of a
// branch, open one, update one. One module per forge implements it with that forge's client.
import type { ForgeFailure } from "./failure.js";
export const FORGES = ["github", "gitlab", "gitea"] as const;
export type ForgeKind = (typeof FORGES)[number];

/** A pull request (GitLab: merge request) as the daemon keeps it. */
export interface PullRequestRef {
  number: number;
  url: string;
}

/** A pull request opened or updated, with what could not be set on it. */
export interface PullRequestSet extends PullRequestRef {
  /** A label the repository lacks, a reviewer the forge refused: the pull request is there all the same. */
  warnings: string[];
}

/** What the pull request says and where it goes. */
export interface PullRequestDraft {
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  labels: string[];
  reviewers: string[];
}

export interface Forge {
  /** The open pull request from `head` into `base`, if there is one. */
  findOpen(head: string, base: string): Promise<PullRequestRef | undefined>;
  open(draft: PullRequestDraft): Promise<PullRequestSet>;
  /**
   * Sets the title and body, and adds the labels and reviewers again (a person may have taken
   * one off by mistake); labels and reviewers people added are kept.
   */
  update(number: number, draft: PullRequestDraft): Promise<PullRequestSet>;
}

export interface ForgeOptions {
  apiUrl: string;
  /** owner/name (GitLab: the project's full path). */
  repository: string;
  token: string;
}

/**
 * A forge call that failed: `retry` when trying later may work (rate limits, 5xx, the network),
 * with the wait the forge asked for; `permanent` when it will not until a person acts.
 */
export class ForgeError extends Error {
  constructor(
    message: string,
    readonly failure: ForgeFailure,
    readonly status?: number,
  ) {
    super(message);
    this.name = "ForgeError";
  }
}
