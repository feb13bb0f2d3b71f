// GitHub (and GitHub Enterprise Server, through `api_url`) through its official client, Octokit.
import { decorationStep } from "./decoration.js";
import type { Forge, ForgeOptions, PullRequestDraft } from "./forge.js";
import { githubCall as call, octokitFor } from "./octokit.js";

export function githubForge(options: ForgeOptions): Forge {
  const [owner, repo] = options.repository.split("/") as [string, string];
  const octokit = octokitFor(options);
  const decorate = async (number: number, draft: PullRequestDraft) => {
    const warnings: string[] = [];
    if (draft.labels.length > 0)
      await decorationStep(warnings, () =>
        call("adding labels", () =>
          octokit.rest.issues.addLabels({
            owner,
            repo,
            issue_number: number,
            labels: draft.labels,
          }),
        ),
      );
    if (draft.reviewers.length > 0)
      await decorationStep(warnings, () =>
        call("requesting reviewers", () =>
          octokit.rest.pulls.requestReviewers({
            owner,
            repo,
            pull_number: number,
            reviewers: draft.reviewers,
          }),
        ),
      );
    return warnings;
  };
  return {
    async findOpen(head, base) {
      const { data } = await call("listing pull requests", () =>
        octokit.rest.pulls.list({ owner, repo, state: "open", head: `${owner}:${head}`, base }),
      );
      const found = data[0];
      return found === undefined ? undefined : { number: found.number, url: found.html_url };
    },
    async open(draft) {
      const { head, base, title, body } = draft;
      const { data } = await call("opening a pull request", () =>
        octokit.rest.pulls.create({ owner, repo, head, base, title, body, draft: draft.draft }),
      );
      const warnings = await decorate(data.number, draft);
      return { number: data.number, url: data.html_url, warnings };
    },
    async update(number, draft) {
      const { title, body } = draft;
      const { data } = await call("updating the pull request", () =>
        octokit.rest.pulls.update({ owner, repo, pull_number: number, title, body }),
      );
      const warnings = await decorate(data.number, draft);
      return { number: data.number, url: data.html_url, warnings };
    },
  };
}
