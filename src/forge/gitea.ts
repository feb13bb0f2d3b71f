// Gitea (and Forgejo) through its REST API (`api_url`, such as https://gitea.example/api/v1):
// Gitea publishes no official Node client, so the daemon's own HTTP client speaks it.
import { decorationStep } from "./decoration.js";
import type { Forge, ForgeOptions, PullRequestDraft, PullRequestRef } from "./forge.js";
import { giteaCall } from "./gitea-api.js";
import { giteaLabelIds } from "./gitea-labels.js";

interface GiteaPull {
  number: number;
  html_url: string;
  head?: { ref?: string };
  base?: { ref?: string };
}

export function giteaForge(options: ForgeOptions): Forge {
  const call = giteaCall(options);
  const repo = `/repos/${options.repository}`;
  const ref = (p: GiteaPull): PullRequestRef => ({ number: p.number, url: p.html_url });
  const decorate = async (number: number, draft: PullRequestDraft) => {
    const warnings: string[] = [];
    if (draft.labels.length > 0) {
      const ids = await giteaLabelIds(call, options.repository, draft.labels, warnings);
      if (ids.length > 0)
        await decorationStep(warnings, () =>
          call("adding labels", "POST", `${repo}/issues/${number}/labels`, { labels: ids }),
        );
    }
    if (draft.reviewers.length > 0)
      await decorationStep(warnings, () =>
        call("requesting reviewers", "POST", `${repo}/pulls/${number}/requested_reviewers`, {
          reviewers: draft.reviewers,
        }),
      );
    return warnings;
  };
  return {
    async findOpen(head, base) {
      const pulls = await call<GiteaPull[]>(
        "listing pull requests",
        "GET",
        `${repo}/pulls?state=open&limit=50`,
      );
      const found = pulls.find((p) => p.head?.ref === head && p.base?.ref === base);
      return found === undefined ? undefined : ref(found);
    },
    async open(draft) {
      const title = draft.draft ? `WIP: ${draft.title}` : draft.title;
      const pull = await call<GiteaPull>("opening a pull request", "POST", `${repo}/pulls`, {
        head: draft.head,
        base: draft.base,
        title,
        body: draft.body,
      });
      return { ...ref(pull), warnings: await decorate(pull.number, draft) };
    },
    async update(number, draft) {
      const title = draft.draft ? `WIP: ${draft.title}` : draft.title;
      const pull = await call<GiteaPull>(
        "updating the pull request",
        "PATCH",
        `${repo}/pulls/${number}`,
        {
          title,
          body: draft.body,
        },
      );
      return { ...ref(pull), warnings: await decorate(pull.number, draft) };
    },
  };
}
