// A schedule with `fetch = true`: the run's worktree starts from what its remote has (a bare
// repository on disk ahead of the project's clone), and a fetch that fails ends the run before
// it starts, as a transient failure that `retry` tries again. Real `autoloop-cron fire`.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { readRunBranch } from "../../src/delivery/run-branch.js";
import { createWorktree, finishWorktree } from "../../src/harness/worktree/worktree.js";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import { deliverOf } from "../../src/scheduler/config/deliver.js";
import { runFetchOf } from "../../src/scheduler/config/fetch.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { retryClassOf } from "../../src/scheduler/retry/plan.js";
import {
  parseScheduleFile,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { checkScheduleSteps } from "../../src/scheduler/schedules/validate.js";
import { formatProblem } from "../../src/util/errors.js";
import { runSteps } from "../../src/util/steps.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { writeCronConfig } from "../helpers/daemon.js";
import { GIT_ENV, git, projectWithOrigin } from "../helpers/git.js";
import { oneIterationPreset } from "../helpers/script-preset.js";

afterEach(cleanupTempDirs);

/** A project cloned from `origin`, which a teammate has since pushed a commit to. */
function behindItsRemote(dir: string, schedule: string) {
  const { project, origin } = projectWithOrigin(dir);
  const mate = join(dir, "mate");
  git(dir, "clone", "-q", origin, mate);
  writeFileSync(join(mate, "team.txt"), "the team's work\n");
  git(mate, "add", "-A");
  git(mate, "commit", "-q", "-m", "team");
  git(mate, "push", "-q", "origin", "main");
  oneIterationPreset(join(dir, "presets"), "lister", "ls > seen.txt; echo LOOP_COMPLETE");
  writeCronConfig(
    dir,
    `[[schedule]]\nname = "nightly"\ncron = "0 3 * * *"\npreset = "lister"\nobjective = "look"\nproject_dir = "../work"\nisolation = "worktree"\n${schedule}\n`,
  );
  const config = join(dir, "autoloop-cron.toml");
  // The latest 03:00 slot: a scheduled slot's failed run is retried (before the next one).
  const slot = new Date();
  slot.setUTCHours(3, 0, 0, 0);
  if (slot.getTime() > Date.now()) slot.setTime(slot.getTime() - 86_400_000);
  const fire = () =>
    execa(
      process.execPath,
      [AUTOLOOP_CRON, "fire", "nightly", "--slot", slot.toISOString(), "--config", config],
      { reject: false, env: cleanEnv(GIT_ENV), extendEnv: false },
    );
  return { project, fire, team: git(mate, "rev-parse", "HEAD").trim() };
}

describe("fetch before the run", () => {
  it("is on with fetch = true or deliver, from the pull request's remote and base unless named", () => {
    const pull = deliverOf({
      pull_request: {
        remote: "upstream",
        forge: "github",
        base: "develop",
        labels: [],
        draft: false,
        reviewers: [],
        token_env: "GH_TOKEN",
      },
    });
    expect(runFetchOf({ fetch: false })).toBeUndefined();
    expect(runFetchOf({ fetch: true })).toEqual({ remote: "origin" });
    expect(runFetchOf({ fetch: false, deliver: pull })).toEqual({
      remote: "upstream",
      base: "develop",
    });
    const named = { fetchRemote: "mirror", fetchBase: "main" };
    expect(runFetchOf({ ...named, deliver: pull })).toEqual({ remote: "mirror", base: "main" });
  });

  it("is flagged by validate on a shared run, whose checkout is never moved", () => {
    const config = parseConfigText("autoloop-cron.toml", "", "/srv").config!;
    const text = `[[schedule]]\nname = "s"\ncron = "0 2 * * *"\npreset = "autofix"\nobjective = "o"\nisolation = "shared"\nfetch = true\n`;
    const file = parseScheduleFile("s.toml", text, scheduleDefaults(config), {
      fileDir: "/srv",
      configDir: "/srv",
    });
    const report = runSteps(checkScheduleSteps(file.schedules, config, new Map(), () => false));
    expect(report.warnings.map(formatProblem)).toContainEqual(
      expect.stringContaining(
        'schedule[0].isolation: found "shared"; expected fetch = true on worktree runs',
      ),
    );
  });

  it("makes the run's worktree from the remote's branch, leaving the checkout as it was", async () => {
    const dir = tempDir();
    const { project, fire, team } = behindItsRemote(dir, "fetch = true");
    const before = git(project, "rev-parse", "HEAD").trim();
    const fired = await fire();
    expect(fired.exitCode, fired.stderr + fired.stdout).toBe(0);
    const start = readFileSync(join(project, ".autoloop", "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((r) => r.topic === "loop.start");
    const tree = start.fields.worktree_path as string;
    expect(readFileSync(join(tree, "seen.txt"), "utf8")).toContain("team.txt");
    const meta = JSON.parse(readFileSync(join(tree, "..", "meta.json"), "utf8"));
    expect(meta).toMatchObject({ base_branch: "main", base_commit: team });
    expect(git(project, "rev-parse", "HEAD").trim()).toBe(before);
    expect(git(project, "rev-parse", "refs/remotes/origin/main").trim()).toBe(team);
    // The daemon's own record of the run's base: what a pull request's base comes from.
    const ledger = RunLedger.open(join(dir, "state"));
    const runId = [...ledger.runIdsNewestFirst("nightly")][0]!;
    const started = ledger.replay(runId)!.events.find((e) => e.event === "started");
    expect(started).toMatchObject({ from: { branch: "main", commit: team } });
  });

  it("counts a delivered run's commits from the fetched commit, not the lagging local branch", async () => {
    const dir = tempDir();
    const { project, team } = behindItsRemote(dir, "fetch = true");
    git(project, "fetch", "-q", "origin");
    const autoloopDir = join(project, ".autoloop");
    const runId = "nightly-20261201T0300-abcde";
    const meta = createWorktree({
      ...{ projectDir: project, autoloopDir, runId },
      ...{ branchPrefix: "autoloop", mergeStrategy: "squash" },
      start: { branch: "main", commit: team },
    });
    writeFileSync(join(meta.worktree_path, "fix.txt"), "fixed\n");
    finishWorktree(autoloopDir, runId, "completed");
    const branch = await readRunBranch(join(autoloopDir, "journal.jsonl"), runId, "REPORT.md");
    expect(branch).toMatchObject({ kind: "commits", commits: 1, startedFrom: "main" });
  });

  it("ends the run before it starts when the fetch fails: transient, and retried", async () => {
    const dir = tempDir();
    const { project, fire } = behindItsRemote(
      dir,
      'fetch_remote = "gone"\nfetch = true\nretry = { attempts = 2, delay = "1s", on = ["transient"] }',
    );
    git(project, "remote", "add", "gone", join(dir, "no-such-repository.git"));
    const fired = await fire();
    expect(fired.exitCode).not.toBe(0);
    const ledger = RunLedger.open(join(dir, "state"));
    const runs = [...ledger.runIdsNewestFirst("nightly")].map((id) => ledger.summary(id)!);
    expect(runs).toHaveLength(2);
    for (const run of runs) {
      expect(run).toMatchObject({
        status: "failed",
        basis: "fetch",
        stopReason: "transient_error",
      });
      expect(run.detail).toContain("git ls-remote gone failed");
      expect(retryClassOf(run)).toBe("transient");
    }
    expect(existsSync(join(project, ".autoloop", "journal.jsonl"))).toBe(false);
  });
});
