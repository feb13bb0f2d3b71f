// Gitea (and Forgejo) through its REST API (`api_url`, such as https://gitea.example/api/v1):
// Gitea publishes no official Node client, so the daemon's own HTTP client speaks it.
import { httpRequest } from "../util/http-request.js";
import { forgeFailure, statusAdvice } from "./failure.js";
import { type Forge, ForgeError, type ForgeOptions, type PullRequestRef } from "./forge.js";

interface GiteaPull {
  number: number;
  html_url: string;
  head?: { ref?: string };
  base?: { ref?: string };
}

/** A call to the repository's API (`path` under /repos/<owner>/<name>), failures as ForgeErrors. */
export function giteaClient(options: ForgeOptions) {
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
  return send;
}

export function giteaForge(options: ForgeOptions): Forge {
  const send = giteaClient(options);
  const ref = (p: GiteaPull): PullRequestRef => ({ number: p.number, url: p.html_url });
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
        ...(draft.reviewers.length > 0 && { reviewers: draft.reviewers }),
      });
      return ref(pull);
    },
    async update(number, draft) {
      const title = draft.draft ? `WIP: ${draft.title}` : draft.title;
      const pull = await send<GiteaPull>("updating the pull request", "PATCH", `/pulls/${number}`, {
        title,
        body: draft.body,
      });
      return ref(pull);
    },
  };
}
