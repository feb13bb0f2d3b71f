// GitLab (gitlab.com or a self-managed instance, `api_url` its root) through its client,
// Gitbeaker: merge requests, a draft as GitLab marks one (the "Draft:" title prefix).
import { createRequesterFn, GitbeakerRequestError } from "@gitbeaker/requester-utils";
import { Gitlab } from "@gitbeaker/rest";
import { forgeFailure, statusAdvice } from "./failure.js";
import { type Forge, ForgeError, type ForgeOptions, type PullRequestDraft } from "./forge.js";

interface GitbeakerFailure {
  message?: string;
  cause?: { response?: { status?: number; headers?: Headers } };
}

function failed(what: string, err: unknown): ForgeError {
  const e = err as GitbeakerFailure;
  const status = e.cause?.response?.status;
  const headers: Record<string, string> = {};
  e.cause?.response?.headers?.forEach((value, key) => {
    headers[key] = value;
  });
  const failure = forgeFailure(status, headers, Date.now());
  const advice = statusAdvice(status);
  const detail = `GitLab: ${what}: ${status ?? "no answer"} ${e.message ?? String(err)}`;
  return new ForgeError(advice === "" ? detail : `${detail}; ${advice}`, failure, status);
}

/**
 * Gitbeaker's own requester retries a 429 ten times over minutes, blind to `Retry-After`: one
 * try each here, and the delivery queue waits as the forge asks, durably.
 */
const oneTry = createRequesterFn(
  (_, options) => Promise.resolve(options),
  async (endpoint, options = {}) => {
    const { prefixUrl, searchParams, rateLimiters: _r, agent: _a, asStream: _s, ...init } = options;
    const base = String(prefixUrl ?? "");
    const url = new URL(endpoint, base.endsWith("/") ? base : `${base}/`);
    url.search = String(searchParams ?? "");
    const request = new Request(url, init as RequestInit);
    const response = await fetch(request);
    const text = await response.text();
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      headers[key] = value;
    });
    if (!response.ok) {
      const description = text.slice(0, 300);
      throw new GitbeakerRequestError(description, { cause: { description, request, response } });
    }
    return { body: text === "" ? null : JSON.parse(text), headers, status: response.status };
  },
);

const titleOf = (d: PullRequestDraft) => (d.draft ? `Draft: ${d.title}` : d.title);

/** Gitbeaker for the project, and a call that turns its failures into ForgeErrors. */
export function gitlabClient(options: ForgeOptions) {
  const api = new Gitlab({
    host: options.apiUrl,
    token: options.token,
    queryTimeout: 30_000,
    requesterFn: oneTry,
  });
  const projectId = options.repository;
  const call = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw failed(what, err);
    }
  };
  return { api, projectId, call };
}

export function gitlabForge(options: ForgeOptions): Forge {
  const { api, projectId, call } = gitlabClient(options);
  /** The reviewers' user ids; a name GitLab does not know is a warning. */
  const reviewerIds = async (names: string[], warnings: string[]) => {
    const ids: number[] = [];
    for (const username of names) {
      const users = await call(`finding reviewer ${username}`, () => api.Users.all({ username }));
      if (users[0] !== undefined) ids.push(users[0].id);
      else
        warnings.push(
          `GitLab: reviewer ${JSON.stringify(username)} is no user there: fix deliver.pull_request.reviewers`,
        );
    }
    return ids;
  };
  return {
    async findOpen(head, base) {
      const found = await call("listing merge requests", () =>
        api.MergeRequests.all({
          projectId,
          sourceBranch: head,
          targetBranch: base,
          state: "opened",
        }),
      );
      const mr = found[0];
      return mr === undefined ? undefined : { number: mr.iid, url: mr.web_url };
    },
    async open(draft) {
      const warnings: string[] = [];
      const reviewers = await reviewerIds(draft.reviewers, warnings);
      const mr = await call("opening a merge request", () =>
        api.MergeRequests.create(projectId, draft.head, draft.base, titleOf(draft), {
          description: draft.body,
          ...(draft.labels.length > 0 && { labels: draft.labels.join(",") }),
          ...(reviewers.length > 0 && { reviewerIds: reviewers }),
        }),
      );
      return { number: mr.iid, url: mr.web_url, warnings };
    },
    async update(number, draft) {
      const warnings: string[] = [];
      const mr = await call("updating the merge request", () =>
        api.MergeRequests.edit(projectId, number, {
          title: titleOf(draft),
          description: draft.body,
          ...(draft.labels.length > 0 && { addLabels: draft.labels.join(",") }),
        }),
      );
      // `reviewer_ids` replaces the list: the ones people added are sent back with the schedule's.
      const current = (mr.reviewers ?? []).map((r) => r.id);
      const wanted = await reviewerIds(draft.reviewers, warnings);
      if (wanted.some((id) => !current.includes(id)))
        await call("requesting reviewers", () =>
          api.MergeRequests.edit(projectId, number, {
            reviewerIds: [...new Set([...current, ...wanted])],
          }),
        );
      return { number: mr.iid, url: mr.web_url, warnings };
    },
  };
}
