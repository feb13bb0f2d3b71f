// A review on GitHub: the pull request read through Octokit, and the run's report kept as one
// pull request review (event COMMENT, a summary with no line comments), its body edited in
// place by later runs (`PUT /pulls/{n}/reviews/{id}`) rather than a new review each time.
import type { ForgeOptions } from "./forge.js";
import { githubCall as call, octokitFor } from "./octokit.js";
import type { ReviewForge } from "./review.js";

export function githubReviews(options: ForgeOptions): ReviewForge {
  const [owner, repo] = options.repository.split("/") as [string, string];
  const octokit = octokitFor(options);
  return {
    async pull(number) {
      const { data } = await call(`reading pull request #${number}`, () =>
        octokit.rest.pulls.get({ owner, repo, pull_number: number }),
      );
      const headRepository = data.head.repo?.full_name ?? "(a deleted repository)";
      return {
        number: data.number,
        url: data.html_url,
        headSha: data.head.sha,
        fromFork: headRepository !== data.base.repo.full_name,
        headRepository,
        title: data.title,
        body: data.body ?? "",
      };
    },
    async findReview(number, marker) {
      const reviews = await call(`listing the reviews of pull request #${number}`, () =>
        octokit.paginate(octokit.rest.pulls.listReviews, {
          owner,
          repo,
          pull_number: number,
          per_page: 100,
        }),
      );
      const found = reviews.findLast((r) => r.body?.includes(marker));
      return found === undefined ? undefined : { id: found.id, url: found.html_url };
    },
    async postReview(number, body) {
      const { data } = await call(`posting a review on pull request #${number}`, () =>
        octokit.rest.pulls.createReview({
          owner,
          repo,
          pull_number: number,
          event: "COMMENT",
          body,
        }),
      );
      return { id: data.id, url: data.html_url };
    },
    async updateReview(number, id, body) {
      const { data } = await call(`updating review ${id} on pull request #${number}`, () =>
        octokit.rest.pulls.updateReview({ owner, repo, pull_number: number, review_id: id, body }),
      );
      return { id: data.id, url: data.html_url };
    },
  };
}
