// A run rewrites its project's `.git/config` (remote and push URL to another git server, a URL
// rewrite, a proxy, hooks, an fsmonitor, an alternates' command, an ssh command, a credential
// helper): the daemon's fetches and pushes, in a repository of its own with git sealed, still
// reach the remote recorded when the schedule loaded, the token reaches only it, and none of
// the run's commands runs as the daemon.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openOwnRepo } from "../../src/forge/own-repo.js";
import { pushEnvironment } from "../../src/forge/push.js";
import { fetchRef } from "../../src/scheduler/launch/fetch-ref.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { capturingLogger, commandSchedule, writeCronConfig } from "../helpers/daemon.js";
import {
  deliveryProject,
  fetchPlaceIn,
  githubDeliveryWorld,
  startDeliveringDaemon,
  WORKTREE_RUN_SCRIPT,
} from "../helpers/delivery-world.js";
import { GIT_ENV, git, projectWithOrigin } from "../helpers/git.js";
import { startGitHttp } from "../helpers/git-http.js";
import { hostileGit } from "../helpers/hostile-git.js";
import { closeLoopback, listenLoopback } from "../helpers/loopback.js";
import { oneIterationPreset } from "../helpers/script-preset.js";
import { waitFor } from "../helpers/wait.js";

const TOKEN = "ghp_hostileconfig0123456789";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(cleanupTempDirs);

/** An HTTP proxy that answers nothing but records what it was asked. */
async function recordingProxy() {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
    res.writeHead(502).end();
  });
  server.on("connect", (req, socket) => {
    requests.push(`CONNECT ${req.url}`);
    socket.destroy();
  });
  const url = await listenLoopback(server);
  closers.push(() => closeLoopback(server));
  return { url, requests };
}

/** A git server the run would send the daemon to, which would take any push. */
async function evilRemote(dir: string) {
  const root = join(dir, "evil");
  git(dir, "init", "-q", "--bare", "-b", "main", join(root, "octo", "app.git"));
  const server = await startGitHttp(root, TOKEN);
  closers.push(() => server.close());
  return { server, bare: join(root, "octo", "app.git") };
}

describe("a run's hostile project git config", () => {
  it("moves neither the delivery's push nor its token, and runs none of its commands", async () => {
    const world = await githubDeliveryWorld(TOKEN, closers);
    const evil = await evilRemote(world.dir);
    const proxy = await recordingProxy();
    const hostile = hostileGit(world.dir, {
      evilUrl: `${evil.server.url}/octo/app.git`,
      realPrefix: `${world.gitHttp.url}/`,
      evilPrefix: `${evil.server.url}/`,
      proxyUrl: proxy.url,
    });
    // The run leaves its commit, then rewrites the project's config.
    const script = `${WORKTREE_RUN_SCRIPT}\nx("sh", [${JSON.stringify(hostile.script)}]);\n`;
    const config = writeCronConfig(world.dir, commandSchedule("check", script, world.deliver));
    const { logger, lines } = capturingLogger();
    const { daemon } = await startDeliveringDaemon(config, TOKEN, closers, { logger });

    const run = await waitFor(
      () => daemon.ledger.listRuns({ schedule: "check" }).find((r) => r.pullRequest !== undefined),
      "a run whose pull request is in the ledger",
      60_000,
    );
    expect(run.pullRequest).toBe("https://github.example/octo/app/pull/1");
    const bare = join(world.remotes, "octo", "app.git");
    expect(git(bare, "for-each-ref", "refs/heads/autoloop/check")).toContain("autoloop/check");
    expect(evil.server.authorizations).toEqual([]);
    expect(git(evil.bare, "for-each-ref")).toBe("");
    expect(proxy.requests).toEqual([]);
    expect(hostile.marks()).toEqual([]);
    expect(world.gitHttp.authorizations.length).toBeGreaterThan(0);
    expect(git(world.work, "config", "remote.origin.url")).toContain(evil.server.url);
    expect(lines.map((l) => String(l.msg))).toContainEqual(
      expect.stringContaining("the daemon keeps"),
    );
  }, 90_000);

  it("moves no fetch before a later run, and runs none of its commands", async () => {
    const dir = tempDir();
    const evil = join(dir, "evil.git");
    const { project, origin } = projectWithOrigin(dir);
    git(dir, "init", "-q", "--bare", "-b", "main", evil);
    // What the run would start the next run from: a commit only the other repository has.
    git(project, "commit", "-q", "--allow-empty", "-m", "planted");
    git(project, "push", "-q", evil, "main");
    git(project, "reset", "-q", "--hard", "HEAD~1");
    oneIterationPreset(join(dir, "presets"), "lister", "echo LOOP_COMPLETE");
    writeCronConfig(
      dir,
      `[[schedule]]\nname = "nightly"\ncron = "0 3 * * *"\npreset = "lister"\nobjective = "look"\nproject_dir = "../work"\nisolation = "worktree"\nfetch = true\nfetch_base = "main"\n`,
    );
    const fire = () =>
      execa(
        process.execPath,
        [AUTOLOOP_CRON, "fire", "nightly", "--config", join(dir, "autoloop-cron.toml")],
        { reject: false, env: cleanEnv(GIT_ENV), extendEnv: false },
      );
    const first = await fire();
    expect(first.exitCode, first.stderr).toBe(0);
    // A run left the project's config hostile; the team moved main on the real remote since.
    const hostile = hostileGit(dir, { evilUrl: evil, realPrefix: origin, evilPrefix: evil });
    await execa("sh", [hostile.script], { cwd: project });
    const mate = join(dir, "mate");
    git(dir, "clone", "-q", origin, mate);
    git(mate, "commit", "-q", "--allow-empty", "-m", "team");
    git(mate, "push", "-q", "origin", "main");
    const team = git(mate, "rev-parse", "HEAD").trim();

    const second = await fire();
    expect(second.exitCode, second.stderr).toBe(0);
    const starts = readFileSync(join(project, ".autoloop", "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((r) => r.topic === "loop.start");
    const tree = starts.at(-1).fields.worktree_path as string;
    const meta = JSON.parse(readFileSync(join(tree, "..", "meta.json"), "utf8"));
    expect(meta).toMatchObject({ base_branch: "main", base_commit: team });
    expect(hostile.marks()).toEqual([]);
  }, 60_000);

  it("moves neither a review's fetch of the pull request's head nor its token", async () => {
    const p = await deliveryProject("octo/app", TOKEN);
    closers.push(() => p.gitHttp.close());
    const head = git(p.bare, "commit-tree", "-p", "main", "-m", "the change", "main^{tree}").trim();
    git(p.bare, "update-ref", "refs/pull/1/head", head);
    const evil = await evilRemote(p.root);
    const proxy = await recordingProxy();
    const place = fetchPlaceIn(p.root, { schedule: "review-pr", cwd: p.project });
    // The schedule loaded before the run wrote the config.
    const own = await openOwnRepo({ ...place, remote: "origin" });
    if (own.kind !== "ready") throw new Error(own.detail);
    const hostile = hostileGit(p.root, {
      evilUrl: `${evil.server.url}/octo/app.git`,
      realPrefix: `${p.gitHttp.url}/`,
      evilPrefix: `${evil.server.url}/`,
      proxyUrl: proxy.url,
    });
    await execa("sh", [hostile.script], { cwd: p.project });

    const tokenEnv = pushEnvironment("github", TOKEN);
    const fetched = await fetchRef({ ...place, tokenEnv }, own.dir, "origin", "refs/pull/1/head");
    expect(fetched).toEqual({ kind: "fetched", commit: head });
    expect(git(p.project, "rev-parse", "refs/remotes/origin/pull/1/head").trim()).toBe(head);
    expect(evil.server.authorizations).toEqual([]);
    expect(proxy.requests).toEqual([]);
    expect(hostile.marks()).toEqual([]);
    expect(p.gitHttp.authorizations.length).toBeGreaterThan(0);
  });
});
