// A run still fetching its remote can be stopped: `autoloop-cron stop`, the schedule's timeout
// and the daemon's shutdown kill git (the remote, a loopback git server that never answers,
// sees its client hang up), record the run as any stopped run, and spawn nothing after.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger } from "../helpers/daemon.js";
import { GIT_ENV, git } from "../helpers/git.js";
import { startGitHttp } from "../helpers/git-http.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

const TOKEN = "fetch-token";

function schedule(name: string, extra = ""): string {
  return `[[schedule]]\nname = "${name}"\ncron = "0 3 * * *"\npreset = "lister"\nobjective = "look"\nproject_dir = "../work"\nisolation = "worktree"\nfetch = true\nfetch_base = "main"\n${extra}\n`;
}

/** A project whose `origin` is a git server that holds every fetch; a daemon's config for it. */
function projectBehindHungRemote(root: string, remoteUrl: string): string {
  const project = join(root, "work");
  mkdirSync(project);
  git(project, "init", "-q", "-b", "main");
  git(project, "commit", "-q", "--allow-empty", "-m", "init");
  const url = new URL(`${remoteUrl}/origin.git`);
  url.username = "autoloop";
  url.password = TOKEN;
  git(project, "remote", "add", "origin", url.toString());
  const preset = join(root, "presets", "lister");
  mkdirSync(preset, { recursive: true });
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 1\nstall_iterations = 0\n[backend]\ncommand = "sh"\nargs = ["-c", "echo LOOP_COMPLETE"]\nprompt_mode = "file"\n`,
  );
  mkdirSync(join(root, "schedules"));
  writeFileSync(
    join(root, "schedules", "s.toml"),
    schedule("stopped") + schedule("slow", 'timeout = "1s"') + schedule("shut"),
  );
  const config = join(root, "autoloop-cron.toml");
  writeFileSync(
    config,
    'state_dir = "state"\n[http]\nlisten = ""\n[defaults]\ncatch_up = "none"\n',
  );
  return config;
}

/** Resolves once the client of a held request has hung up (git and its helper are gone). */
async function hungUp(request: { path: string; closed: Promise<void> }): Promise<void> {
  let gone = false;
  void request.closed.then(() => {
    gone = true;
  });
  await waitFor(() => gone, `git to hang up on ${request.path}`, 30_000);
}

describe("a run stopped while its remote is fetched", () => {
  it("is killed by stop, timed out by its timeout, interrupted by a shutdown; nothing spawns", async () => {
    const root = tempDir("autoloop-fetchstop-");
    mkdirSync(join(root, "remotes"));
    git(join(root, "remotes"), "init", "-q", "--bare", "-b", "main", "origin.git");
    const remote = await startGitHttp(join(root, "remotes"), TOKEN, { hold: true });
    const config = projectBehindHungRemote(root, remote.url);
    const env = cleanEnv(GIT_ENV);
    const cli = (...args: string[]) =>
      execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
        env,
        extendEnv: false,
        reject: false,
      });
    const daemon = execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", config], {
      env,
      extendEnv: false,
      reject: false,
    });
    const state = join(root, "state");
    const summary = (runId: string) =>
      RunLedger.open(state, { logger: silentLogger }).replay(runId)?.summary;
    const ended = (runId: string) =>
      waitFor(
        () => {
          const s = summary(runId);
          return s !== undefined && s.status !== "pending" && s.status !== "running" && s;
        },
        `the end of ${runId} in the ledger`,
        30_000,
      );
    let said = "";
    daemon.stdout?.on("data", (chunk) => {
      said += chunk;
    });
    // Not before: `fire` without a daemon would fetch in the test's own child.
    await waitFor(() => said.includes("autoloop-cron started"), "the daemon to start", 30_000);
    const fire = async (name: string, held: number) => {
      const fired = await cli("fire", name);
      expect(fired.exitCode, fired.stderr).toBe(0);
      await waitFor(
        () => remote.held.length >= held,
        `${name}'s fetch to reach the remote`,
        30_000,
      );
      return { runId: fired.stdout.trim(), request: remote.held[held - 1]! };
    };
    try {
      const stopped = await fire("stopped", 1);
      const stop = await cli("stop", stopped.runId, "not", "today");
      expect(stop.exitCode, stop.stderr).toBe(0);
      await hungUp(stopped.request); // git was killed: its connection is gone
      expect(await ended(stopped.runId)).toMatchObject({
        status: "killed",
        killedBy: "operator",
      });

      const slow = await fire("slow", 2);
      await hungUp(slow.request);
      expect(await ended(slow.runId)).toMatchObject({ status: "timed_out", killedBy: "timeout" });

      const shut = await fire("shut", 3);
      daemon.kill("SIGTERM");
      await hungUp(shut.request);
      expect((await daemon).exitCode).toBe(0);
      expect(summary(shut.runId)).toMatchObject({ status: "interrupted" });

      for (const runId of [stopped.runId, slow.runId, shut.runId]) {
        const events = RunLedger.open(state, { logger: silentLogger }).replay(runId)!.events;
        expect(events.map((e) => e.event)).not.toContain("started");
      }
    } finally {
      daemon.kill("SIGKILL");
      await daemon;
      await remote.close();
    }
  }, 90_000);
});
