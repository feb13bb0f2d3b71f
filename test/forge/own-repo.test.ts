// The daemon's own repository of a schedule: made on first use (bare, private, no hook), the
// project's remote URL recorded then and followed only when the schedule loads again; and the
// sealed environment its git runs with.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openOwnRepo, shownUrl, urlFrom } from "../../src/forge/own-repo.js";
import { sealedGitEnv } from "../../src/util/git-run.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { git } from "../helpers/git.js";

afterEach(cleanupTempDirs);

describe("a schedule's own repository", () => {
  it("records the project's URL once, and follows a new one only when the schedule loads", async () => {
    const dir = tempDir();
    const project = join(dir, "work");
    git(dir, "init", "-q", project);
    git(project, "remote", "add", "origin", "https://git.example/octo/app.git");
    const req = { gitDir: join(dir, "state", "git"), schedule: "nightly", projectDir: project };
    const first = await openOwnRepo({ ...req, remote: "origin" });
    const own = join(dir, "state", "git", "nightly.git");
    expect(first).toEqual({ kind: "ready", dir: own, url: "https://git.example/octo/app.git" });
    expect(statSync(join(dir, "state", "git")).mode & 0o777).toBe(0o700);
    expect(statSync(own).mode & 0o777).toBe(0o700);
    expect(git(own, "rev-parse", "--is-bare-repository").trim()).toBe("true");
    expect(existsSync(join(own, "hooks")) ? readdirSync(join(own, "hooks")) : []).toEqual([]);

    git(project, "remote", "set-url", "origin", "https://run:secret@evil.example/x.git");
    const later = await openOwnRepo({ ...req, remote: "origin" });
    expect(later).toMatchObject({ kind: "ready", url: "https://git.example/octo/app.git" });
    expect(later.kind === "ready" && later.notice).toContain(
      "now names https://evil.example/x.git; the daemon keeps https://git.example/octo/app.git, recorded when schedule nightly first used it",
    );
    expect(JSON.stringify(later)).not.toContain("secret");

    const none = await openOwnRepo({ ...req, remote: "upstream" });
    expect(none).toEqual({
      kind: "failed",
      detail: `remote upstream of ${project} has no URL: add it (git remote add upstream <url>)`,
    });
  });

  it("makes a relative path the project's, and leaves URLs as they are", () => {
    expect(urlFrom("/srv/work", "../origin.git")).toBe("/srv/origin.git");
    expect(urlFrom("/srv/work", "/srv/origin.git")).toBe("/srv/origin.git");
    expect(urlFrom("/srv/work", "git@github.com:o/r.git")).toBe("git@github.com:o/r.git");
    expect(urlFrom("/srv/work", "https://github.com/o/r.git")).toBe("https://github.com/o/r.git");
    expect(urlFrom("/srv/work", "file:///srv/o.git")).toBe("file:///srv/o.git");
  });

  it("shows URLs without their user or password", () => {
    expect(shownUrl("https://x-access-token:ghp_1@github.com/o/r.git")).toBe(
      "https://github.com/o/r.git",
    );
    expect(shownUrl("git@github.com:o/r.git")).toBe("git@github.com:o/r.git");
  });
});

describe("the sealed git environment", () => {
  it("keeps the operator's few variables, and the global config only when opted in", () => {
    const base = { PATH: "/bin", HOME: "/home/op", GIT_DIR: "/x", GH_TOKEN: "t", LANG: "fr" };
    expect(sealedGitEnv(base)).toEqual({
      PATH: "/bin",
      HOME: "/home/op",
      LC_ALL: "C",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_TERMINAL_PROMPT: "0",
    });
    expect(sealedGitEnv({ ...base, AUTOLOOP_GIT_GLOBAL_CONFIG: "1" })).not.toHaveProperty(
      "GIT_CONFIG_GLOBAL",
    );
  });
});
