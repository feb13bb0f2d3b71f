// A review on Gitea (and Forgejo): the pull request read through its REST API, and the run's
// report kept as one comment on it, edited in place by later runs. Not a Gitea review: its API
// cannot edit a review's body once posted, and a review posted anew each run is the noise this
// avoids.
import type { ForgeOptions } from "./forge.js";
import { giteaCall } from "./gitea-api.js";
import type { ReviewForge } from "./review.js";

interface GiteaPullDetail {
  number: number;
  html_url: string;
  title: string;
  body?: string | null;
  head: { sha: string; repo?: { full_name?: string } | null };
  base: { repo?: { full_name?: string } | null };
}

interface GiteaComment {
  id: number;
  html_url: string;
  body: string;
  user?: { id?: number } | null;
}

// Gitea's largest page by default (MAX_RESPONSE_ITEMS); the pages read are bounded, so a pull
// request with thousands of comments costs a bounded number of calls (and its newest marked
// comment past them is posted anew, never lost).
const COMMENTS_PAGE = 50;
const COMMENT_PAGES = 40;

export function giteaReviews(options: ForgeOptions): ReviewForge {
  const call = giteaCall(options);
  const send = <T>(what: string, method: "GET" | "POST" | "PATCH", path: string, body?: unknown) =>
    call<T>(what, method, `/repos/${options.repository}${path}`, body);
  return {
    async pull(number) {
      const p = await send<GiteaPullDetail>(
        `reading pull request #${number}`,
        "GET",
        `/pulls/${number}`,
      );
      const headRepository = p.head.repo?.full_name ?? "(a deleted repository)";
      return {
        number: p.number,
        url: p.html_url,
        headSha: p.head.sha,
        fromFork: headRepository !== p.base.repo?.full_name,
        headRepository,
        title: p.title,
        body: p.body ?? "",
      };
    },
    async findReview(number, marker) {
      // Anyone can write the marker, and a token that may write the repository may edit
      // anyone's comment: only the token's own comments are the schedule's to edit.
      const me = await call<{ id: number }>("reading the token's user", "GET", "/user");
      // Oldest first, page by page: the newest marked comment is the one the last run kept.
      let found: GiteaComment | undefined;
      for (let page = 1; page <= COMMENT_PAGES; page++) {
        const comments = await send<GiteaComment[]>(
          `listing the comments of pull request #${number}`,
          "GET",
          `/issues/${number}/comments?limit=${COMMENTS_PAGE}&page=${page}`,
        );
        found = comments.findLast((c) => c.user?.id === me.id && c.body.includes(marker)) ?? found;
        if (comments.length < COMMENTS_PAGE) break;
      }
      return found === undefined ? undefined : { id: found.id, url: found.html_url };
    },
    async postReview(number, body) {
      const c = await send<GiteaComment>(
        `commenting on pull request #${number}`,
        "POST",
        `/issues/${number}/comments`,
        { body },
      );
      return { id: c.id, url: c.html_url };
    },
    async updateReview(number, id, body) {
      const c = await send<GiteaComment>(
        `updating comment ${id} on pull request #${number}`,
        "PATCH",
        `/issues/comments/${id}`,
        { body },
      );
      return { id: c.id, url: c.html_url };
    },
  };
}
