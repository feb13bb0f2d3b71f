// GitHub (and GitHub Enterprise Server, through `api_url`) through its official client, Octokit.
import { Octokit } from "@octokit/rest";
import { decorationStep } from "./decoration.js";
import { forgeFailure, statusAdvice } from "./failure.js";
import { type Forge, ForgeError, type ForgeOptions, type PullRequestDraft } from "./forge.js";

/** Octokit's RequestError, as far as the daemon reads it. */
interface RequestFailure {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | number | undefined> };
}

export function failed(what: string, err: unknown): ForgeError {
  const e = err as RequestFailure;
  const status = typeof e.status === "number" ? e.status : undefined;
  const failure = forgeFailure(status, e.response?.headers ?? {}, Date.now());
  const advice = statusAdvice(status);
  const detail = `GitHub: ${what}: ${status ?? "no answer"} ${e.message ?? String(err)}`;
  return new ForgeError(advice === "" ? detail : `${detail}; ${advice}`, failure, status);
}

/** Octokit for the repository, and a call that turns its failures into ForgeErrors. */
export function githubClient(options: ForgeOptions) {
  const [owner, repo] = options.repository.split("/") as [string, string];
  const octokit = new Octokit({
    auth: options.token,
    baseUrl: options.apiUrl,
    userAgent: "autoloop-cron",
    request: { timeout: 30_000 },
    // Its own log prints failed requests to the console; the daemon logs them itself.
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
  const call = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw failed(what, err);
    }
  };
  return { owner, repo, octokit, call };
}

export function githubForge(options: ForgeOptions): Forge {
  const { owner, repo, octokit, call } = githubClient(options);
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
