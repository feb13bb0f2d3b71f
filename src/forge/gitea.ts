// Gitea (and Forgejo) through its REST API (`api_url`, such as https://gitea.example/api/v1):
// Gitea publishes no official Node client, so the daemon's own HTTP client speaks it.
import { httpRequest } from "../util/http-request.js";
import { decorationStep } from "./decoration.js";
import { forgeFailure, statusAdvice } from "./failure.js";
import {
  type Forge,
  ForgeError,
  type ForgeOptions,
  type PullRequestDraft,
  type PullRequestRef,
} from "./forge.js";

interface GiteaLabel {
  id: number;
  name: string;
}

// Gitea's largest page by default; a repository with more labels than these pages hold is rare.
const LABEL_PAGE_SIZE = 50;
const LABEL_PAGES = 10;

interface GiteaPull {
  number: number;
  html_url: string;
  head?: { ref?: string };
  base?: { ref?: string };
}

export function giteaForge(options: ForgeOptions): Forge {
  const root = `${options.apiUrl}/repos/${options.repository}`;
  const send = async <T>(
    what: string,
    method: "GET" | "POST" | "PATCH",
    path: string,
    body?: unknown,
  ) => {
    let answer: Awaited<ReturnType<typeof httpRequest>>;
    try {
      answer = await httpRequest(new URL(`${root}${path}`), {
        method,
        headers: {
          authorization: `token ${options.token}`,
          accept: "application/json",
          ...(body !== undefined && { "content-type": "application/json" }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        timeoutMs: 30_000,
        maxBodyBytes: 4 << 20,
      });
    } catch (err) {
      throw new ForgeError(`Gitea: ${what}: ${(err as Error).message}`, { kind: "retry" });
    }
    if (answer.status >= 200 && answer.status < 300) return JSON.parse(answer.body) as T;
    const advice = statusAdvice(answer.status);
    const detail = `Gitea: ${what}: ${answer.status} ${answer.body.slice(0, 200)}`;
    throw new ForgeError(
      advice === "" ? detail : `${detail}; ${advice}`,
      forgeFailure(answer.status, answer.headers, Date.now()),
      answer.status,
    );
  };
  const ref = (p: GiteaPull): PullRequestRef => ({ number: p.number, url: p.html_url });
  /** The repository's labels by name, page by page (Gitea takes label ids, not names). */
  const labelIds = async (names: string[], warnings: string[]) => {
    const byName = new Map<string, number>();
    for (let page = 1; page <= LABEL_PAGES; page++) {
      const labels = await send<GiteaLabel[]>(
        "listing labels",
        "GET",
        `/labels?limit=${LABEL_PAGE_SIZE}&page=${page}`,
      );
      for (const l of labels) byName.set(l.name, l.id);
      if (labels.length < LABEL_PAGE_SIZE || names.every((n) => byName.has(n))) break;
    }
    const missing = names.filter((n) => !byName.has(n));
    if (missing.length > 0)
      warnings.push(
        `Gitea: ${options.repository} has no label ${missing.map((n) => JSON.stringify(n)).join(", ")}: create it there (the daemon creates none) or fix deliver.pull_request.labels`,
      );
    return names.flatMap((n) => byName.get(n) ?? []);
  };
  const decorate = async (number: number, draft: PullRequestDraft) => {
    const warnings: string[] = [];
    if (draft.labels.length > 0) {
      const ids = await labelIds(draft.labels, warnings);
      if (ids.length > 0)
        await decorationStep(warnings, () =>
          send("adding labels", "POST", `/issues/${number}/labels`, { labels: ids }),
        );
    }
    if (draft.reviewers.length > 0)
      await decorationStep(warnings, () =>
        send("requesting reviewers", "POST", `/pulls/${number}/requested_reviewers`, {
          reviewers: draft.reviewers,
        }),
      );
    return warnings;
  };
  return {
    async findOpen(head, base) {
      const pulls = await send<GiteaPull[]>(
        "listing pull requests",
        "GET",
        "/pulls?state=open&limit=50",
      );
      const found = pulls.find((p) => p.head?.ref === head && p.base?.ref === base);
      return found === undefined ? undefined : ref(found);
    },
    async open(draft) {
      const title = draft.draft ? `WIP: ${draft.title}` : draft.title;
      const pull = await send<GiteaPull>("opening a pull request", "POST", "/pulls", {
        head: draft.head,
        base: draft.base,
        title,
        body: draft.body,
      });
      return { ...ref(pull), warnings: await decorate(pull.number, draft) };
    },
    async update(number, draft) {
      const title = draft.draft ? `WIP: ${draft.title}` : draft.title;
      const pull = await send<GiteaPull>("updating the pull request", "PATCH", `/pulls/${number}`, {
        title,
        body: draft.body,
      });
      return { ...ref(pull), warnings: await decorate(pull.number, draft) };
    },
  };
}
