// The pure parts of the forges: what an answer's status means, and a remote URL's repository.
import { describe, expect, it } from "vitest";
import { forgeFailure, retryAfterMs } from "../../src/forge/failure.js";
import { repositoryOfUrl } from "../../src/forge/remote.js";

const NOW = Date.parse("2026-11-29T02:00:00Z");

describe("a forge's failed answer", () => {
  it("is worth retrying on 429, 5xx and no answer, after the Retry-After it names", () => {
    expect(forgeFailure(429, { "retry-after": "30" }, NOW)).toEqual({
      kind: "retry",
      retryAfterMs: 30_000,
    });
    expect(forgeFailure(429, { "retry-after": "Sun, 29 Nov 2026 02:01:00 GMT" }, NOW)).toEqual({
      kind: "retry",
      retryAfterMs: 60_000,
    });
    expect(forgeFailure(502, {}, NOW)).toEqual({ kind: "retry" });
    expect(forgeFailure(undefined, {}, NOW)).toEqual({ kind: "retry" });
  });

  it("is a rate limit on a 403 with GitHub's limit spent, until its reset", () => {
    const headers = { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(NOW / 1000 + 90) };
    expect(forgeFailure(403, headers, NOW)).toEqual({ kind: "retry", retryAfterMs: 90_000 });
    expect(retryAfterMs({}, NOW)).toBeUndefined();
  });

  it("is permanent on 401, a plain 403, 404 and 422", () => {
    for (const status of [401, 403, 404, 422])
      expect(forgeFailure(status, {}, NOW)).toEqual({ kind: "permanent" });
  });
});

describe("a remote's repository", () => {
  it("is the URL's path: https, ssh, scp-like, GitLab's subgroups", () => {
    expect(repositoryOfUrl("https://github.com/octo/app.git")).toBe("octo/app");
    expect(repositoryOfUrl("git@github.com:octo/app.git")).toBe("octo/app");
    expect(repositoryOfUrl("ssh://git@gitlab.com/group/sub/app.git")).toBe("group/sub/app");
    expect(repositoryOfUrl("https://gitlab.example/group/sub/app")).toBe("group/sub/app");
    expect(repositoryOfUrl("/srv/git/octo/app.git")).toBe("octo/app");
    expect(repositoryOfUrl("https://github.com/")).toBeUndefined();
  });
});
