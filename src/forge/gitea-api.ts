// Gitea's REST API (`api_url`, such as https://gitea.example/api/v1) through the daemon's own
// HTTP client: one call, its answer parsed, or a ForgeError saying whether to try again.
import { httpRequest } from "../util/http-request.js";
import { forgeFailure, statusAdvice } from "./failure.js";
import { ForgeError, type ForgeOptions } from "./forge.js";

/** Calls `path` (from the API's root); `what` names the call in errors. */
export type GiteaCall = <T>(
  what: string,
  method: "GET" | "POST" | "PATCH",
  path: string,
  body?: unknown,
) => Promise<T>;

export function giteaCall(options: ForgeOptions): GiteaCall {
  return async <T>(
    what: string,
    method: "GET" | "POST" | "PATCH",
    path: string,
    body?: unknown,
  ) => {
    let answer: Awaited<ReturnType<typeof httpRequest>>;
    try {
      answer = await httpRequest(new URL(`${options.apiUrl}${path}`), {
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
}
