// GitLab (gitlab.com or a self-managed instance, `api_url` its root) through its client,
// Gitbeaker: merge requests, a draft as GitLab marks one (the "Draft:" title prefix).
import type { Forge, ForgeOptions, PullRequestDraft } from "./forge.js";
import { gitlabCall as call, gitlabClient } from "./gitbeaker.js";

const titleOf = (d: PullRequestDraft) => (d.draft ? `Draft: ${d.title}` : d.title);

export function gitlabForge(options: ForgeOptions): Forge {
  const api = gitlabClient(options);
  const projectId = options.repository;
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
