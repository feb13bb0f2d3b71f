// Worktree isolation end to end: real git repositories in temp dirs, the real `autoloop` CLI,
// and an agent (sh) that writes files in its working directory.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { GIT_ENV, git } from "../helpers/git.js";

afterEach(cleanupTempDirs);

/** A repository with one commit, and a preset whose agent writes `agent-file.txt`. */
function world(extraConfig = "") {
  const root = tempDir("autoloop-worktree-");
  const project = join(root, "project");
  mkdirSync(project);
  git(project, "init", "-q", "-b", "main");
  writeFileSync(join(project, "README.md"), "hello\n");
  git(project, "add", "-A");
  git(project, "commit", "-q", "-m", "init");
  const preset = join(root, "preset");
  mkdirSync(preset);
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 2\nstall_iterations = 0\n[backend]\ncommand = "sh"\nargs = ["-c", "pwd > where.txt; echo \\"made by $AGENT_WORDS\\" > agent-file.txt; echo LOOP_COMPLETE"]\nprompt_mode = "file"\n${extraConfig}`,
  );
  const run = (args: string[], words = "the agent") =>
    autoloop(["run", preset, "do it", "--quiet", ...args], {
      cwd: project,
      env: { ...GIT_ENV, AGENT_WORDS: words },
    });
  const wt = (...args: string[]) => autoloop(["worktree", ...args], { cwd: project, env: GIT_ENV });
  const journal = () =>
    readFileSync(join(project, ".autoloop", "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
  return { project, preset, run, wt, journal };
}

describe("autoloop run --worktree", () => {
  it("runs the agent in its own tree on autoloop/<run-id>, leaving the checkout alone", async () => {
    const { project, run, wt, journal } = world();
    const r = await run(["--worktree", "--run-id", "w1"]);
    expect(r.exitCode).toBe(0);
    const tree = join(project, ".autoloop", "worktrees", "w1", "tree");
    expect(readFileSync(join(tree, "where.txt"), "utf8").trim()).toBe(tree);
    expect(existsSync(join(project, "agent-file.txt"))).toBe(false);
    expect(git(project, "status", "--porcelain")).toBe("");
    // The agent's leftovers are committed on the run's branch.
    expect(git(project, "log", "--format=%s", "autoloop/w1", "-1").trim()).toBe(
      "autoloop: changes left by run w1",
    );
    const meta = JSON.parse(
      readFileSync(join(project, ".autoloop", "worktrees", "w1", "meta.json"), "utf8"),
    );
    expect(meta).toMatchObject({
      run_id: "w1",
      branch: "autoloop/w1",
      worktree_path: tree,
      base_branch: "main",
      status: "completed",
      merge_strategy: "squash",
      merged_at: null,
      removed_at: null,
    });
    const start = journal().find((r) => r.topic === "loop.start");
    expect(start.fields).toMatchObject({
      isolation_mode: "worktree",
      worktree_branch: "autoloop/w1",
      worktree_path: tree,
    });
    const diff = await wt("diff", "w1", "--stat");
    expect(diff.stdout).toContain("agent-file.txt");
    const list = await wt("list", "--json");
    expect(JSON.parse(list.stdout).map((m: { run_id: string }) => m.run_id)).toEqual(["w1"]);
  });

  it("refuses a folder that is not a git repository, before journaling anything", async () => {
    const { project, run } = world();
    rmSync(join(project, ".git"), { recursive: true, force: true });
    const r = await run(["--worktree"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      "worktree isolation needs a git repository with at least one commit",
    );
    expect(r.stderr).toContain("git init");
    expect(existsSync(join(project, ".autoloop", "journal.jsonl"))).toBe(false);
  });

  it("takes [worktree] enabled from the preset, and --no-worktree over it", async () => {
    const { project, run } = world("[worktree]\nenabled = true\n");
    expect((await run(["--run-id", "cfg"])).exitCode).toBe(0);
    expect(existsSync(join(project, ".autoloop", "worktrees", "cfg", "tree"))).toBe(true);
    expect((await run(["--no-worktree", "--run-id", "plain"])).exitCode).toBe(0);
    expect(existsSync(join(project, "agent-file.txt"))).toBe(true);
    expect(existsSync(join(project, ".autoloop", "worktrees", "plain"))).toBe(false);
  });
});

describe("autoloop worktree merge", () => {
  it.each([
    ["squash", 1],
    ["merge", 2],
    ["rebase", 1],
  ] as const)("brings the branch into main with --strategy %s", async (strategy, parents) => {
    const { project, run, wt } = world();
    expect((await run(["--worktree", "--run-id", "m1"])).exitCode).toBe(0);
    const r = await wt("merge", "m1", "--strategy", strategy);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(project, "agent-file.txt"), "utf8")).toBe("made by the agent\n");
    const head = git(project, "log", "-1", "--format=%P %s").trim().split(" ");
    const headParents = head.filter((w) => /^[0-9a-f]{40}$/.test(w));
    expect(headParents).toHaveLength(parents);
    if (strategy === "rebase")
      expect(head.slice(headParents.length).join(" ")).toBe("autoloop: changes left by run m1");
    else
      expect(head.slice(headParents.length).join(" ")).toBe(`autoloop: merge run m1 (${strategy})`);
    const meta = JSON.parse((await wt("show", "m1", "--json")).stdout);
    expect(meta.status).toBe("merged");
    expect(meta.merged_at).toMatch(/^\d{4}-/);
    // Merged: clean takes it, branch and all.
    expect((await wt("clean")).stdout).toContain("removed m1 (autoloop/m1)");
    expect(git(project, "branch", "--list", "autoloop/*")).toBe("");
    expect(existsSync(join(project, ".autoloop", "worktrees", "m1"))).toBe(false);
  });

  it("aborts a conflicting merge, names the file and changes nothing", async () => {
    const { project, run, wt } = world();
    expect((await run(["--worktree", "--run-id", "c1"])).exitCode).toBe(0);
    writeFileSync(join(project, "agent-file.txt"), "written by a human\n");
    git(project, "add", "-A");
    git(project, "commit", "-q", "-m", "human edit");
    const before = git(project, "rev-parse", "HEAD");
    const r = await wt("merge", "c1");
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("merging run c1 conflicts in agent-file.txt");
    expect(git(project, "rev-parse", "HEAD")).toBe(before);
    expect(git(project, "status", "--porcelain")).toBe("");
    expect(JSON.parse((await wt("show", "c1", "--json")).stdout).status).toBe("completed");
  });

  it("refuses a dirty checkout or another branch", async () => {
    const { project, run, wt } = world();
    expect((await run(["--worktree", "--run-id", "d1"])).exitCode).toBe(0);
    writeFileSync(join(project, "README.md"), "changed\n");
    expect((await wt("merge", "d1")).stderr).toContain("the project has uncommitted changes");
    git(project, "checkout", "-q", "--", "README.md");
    git(project, "switch", "-q", "-c", "other");
    expect((await wt("merge", "d1")).stderr).toContain("`git switch main` first");
  });
});

describe("automerge and cleanup", () => {
  it("merges a completed run and removes its tree and branch", async () => {
    const { project, run, journal } = world();
    expect((await run(["--worktree", "--automerge", "--run-id", "a1"])).exitCode).toBe(0);
    expect(readFileSync(join(project, "agent-file.txt"), "utf8")).toBe("made by the agent\n");
    expect(git(project, "branch", "--list", "autoloop/*")).toBe("");
    const finish = journal().find((r) => r.topic === "worktree.finish");
    expect(finish.fields).toMatchObject({ status: "merged", removed: true });
  });

  it("keeps the tree with --keep-worktree", async () => {
    const { project, run, journal } = world();
    const r = await run(["--worktree", "--automerge", "--keep-worktree", "--run-id", "k1"]);
    expect(r.exitCode).toBe(0);
    const finish = journal().find((x) => x.topic === "worktree.finish" && x.run === "k1");
    expect(finish.fields.status).toBe("merged");
    expect(existsSync(join(project, ".autoloop", "worktrees", "k1", "tree"))).toBe(true);
  });

  it("records an automerge that conflicts, and leaves the branch to merge by hand", async () => {
    const { project, preset, journal } = world();
    // While the run works, someone commits the same file on main.
    writeFileSync(
      join(preset, "autoloops.toml"),
      `[event_loop]\nmax_iterations = 1\nstall_iterations = 0\n[backend]\ncommand = "sh"\nargs = ["-c", "echo agent > agent-file.txt; echo human > \\"$AUTOLOOP_PROJECT_DIR/agent-file.txt\\"; git -C \\"$AUTOLOOP_PROJECT_DIR\\" add agent-file.txt; git -C \\"$AUTOLOOP_PROJECT_DIR\\" commit -q -m human; echo LOOP_COMPLETE"]\nprompt_mode = "file"\n`,
    );
    const r = await autoloop(
      ["run", preset, "x", "--quiet", "--worktree", "--automerge", "--run-id", "x1"],
      {
        cwd: project,
        env: GIT_ENV,
      },
    );
    expect(r.exitCode, r.stderr).toBe(0); // the run completed; only its merge waits
    const finish = journal().find((x) => x.topic === "worktree.finish");
    expect(finish.fields.status).toBe("completed");
    expect(finish.fields.merge_error).toContain("conflicts in agent-file.txt");
    expect(readFileSync(join(project, "agent-file.txt"), "utf8")).toBe("human\n");
    expect(git(project, "branch", "--list", "autoloop/x1")).toContain("autoloop/x1");
  });
});

describe("a merge a killed harness left half done", () => {
  /** What a harness killed inside its squash leaves: the marker, and maybe the staged merge. */
  function interrupted(project: string, runId: string, commit: boolean) {
    const head = git(project, "rev-parse", "HEAD").trim();
    git(project, "merge", "--squash", `autoloop/${runId}`);
    if (commit) git(project, "commit", "-q", "-m", `autoloop: merge run ${runId} (squash)`);
    const marker = { run_id: runId, head, strategy: "squash", pid: 2 ** 22 + 1, started_at: "" };
    writeFileSync(
      join(project, ".autoloop", "worktrees", runId, "merging.json"),
      JSON.stringify(marker),
    );
  }

  it("is undone by the next automerge, which then merges its own run", async () => {
    const { project, run, journal } = world();
    expect((await run(["--worktree", "--run-id", "c1"])).exitCode).toBe(0);
    interrupted(project, "c1", false);
    expect(git(project, "status", "--porcelain")).toBe("A  agent-file.txt\nA  where.txt\n");
    expect((await run(["--worktree", "--automerge", "--run-id", "c2"], "run two")).exitCode).toBe(
      0,
    );
    const finish = journal().find((x) => x.topic === "worktree.finish" && x.run === "c2");
    expect(finish.fields.status).toBe("merged");
    expect(finish.fields.recovered).toBe(
      "run c1: undid its interrupted squash (agent-file.txt, where.txt); merge it again with `autoloop worktree merge c1`",
    );
    expect(git(project, "log", "-1", "--format=%s").trim()).toBe("autoloop: merge run c2 (squash)");
    expect(readFileSync(join(project, "agent-file.txt"), "utf8")).toBe("made by run two\n");
    expect(git(project, "status", "--porcelain")).toBe("");
    expect(existsSync(join(project, ".autoloop", "worktrees", "c1", "merging.json"))).toBe(false);
  });

  it("is marked merged when its commit had landed", async () => {
    const { project, run, wt } = world();
    expect((await run(["--worktree", "--run-id", "c1"])).exitCode).toBe(0);
    interrupted(project, "c1", true);
    const again = await wt("merge", "c1");
    expect(again.stderr).toContain("run c1 is already merged");
    expect(JSON.parse((await wt("show", "c1", "--json")).stdout).status).toBe("merged");
  });

  it("is reported, not undone, when the checkout holds other changes too", async () => {
    const { project, run, wt } = world();
    expect((await run(["--worktree", "--run-id", "c1"])).exitCode).toBe(0);
    interrupted(project, "c1", false);
    writeFileSync(join(project, "README.md"), "edited by a human\n");
    const r = await wt("merge", "c1");
    expect(r.stderr).toContain(
      "the merge of run c1 was interrupted and left changes in the checkout, mixed with changes to README.md",
    );
    expect(readFileSync(join(project, "README.md"), "utf8")).toBe("edited by a human\n");
  });
});

describe("retention", () => {
  it("keeps the worktree.keep newest ended runs; older ones go with their branches", async () => {
    const { project, run, journal } = world();
    for (const id of ["r1", "r2", "r3"])
      expect((await run(["--worktree", "--set", "worktree.keep=2", "--run-id", id])).exitCode).toBe(
        0,
      );
    const dirs = join(project, ".autoloop", "worktrees");
    expect(existsSync(join(dirs, "r1"))).toBe(false);
    expect(existsSync(join(dirs, "r2", "tree"))).toBe(true);
    expect(existsSync(join(dirs, "r3", "tree"))).toBe(true);
    expect(git(project, "branch", "--list", "--format=%(refname:short)", "autoloop/*").trim()).toBe(
      "autoloop/r2\nautoloop/r3",
    );
    const finish = journal().filter((x) => x.topic === "worktree.finish");
    expect(finish.map((x) => x.fields.pruned)).toEqual([undefined, undefined, "r1"]);
  });

  it("says which completed runs clean keeps, and keeps a branch that is not merged", async () => {
    const { project, run, wt } = world();
    expect((await run(["--worktree", "--run-id", "c1"])).exitCode).toBe(0);
    const kept = await wt("clean");
    expect(kept.stdout).toBe(
      "nothing to clean\nkept 1 completed run(s) whose changes may be on their branch only (c1): `autoloop worktree merge <run-id>` brings one in, clean --all drops them",
    );
    const all = await wt("clean", "--all");
    expect(all.stdout).toContain("removed c1; its branch autoloop/c1 is not merged and stays");
    expect(git(project, "branch", "--list", "autoloop/c1")).toContain("autoloop/c1");
    expect((await wt("clean", "--keep", "x")).stderr).toContain("--keep takes a number");
  });
});

describe("worktree edge cases", () => {
  it("runs the agent in the same subfolder of the tree when the work dir is a package", async () => {
    const { project, preset } = world();
    const pkg = join(project, "packages", "app");
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, "package.json"), "{}\n");
    git(project, "add", "-A");
    git(project, "commit", "-q", "-m", "package");
    const r = await autoloop(["run", preset, "x", "--quiet", "--worktree", "--run-id", "p1"], {
      cwd: pkg,
      env: GIT_ENV,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const tree = join(pkg, ".autoloop", "worktrees", "p1", "tree");
    expect(readFileSync(join(tree, "packages", "app", "where.txt"), "utf8").trim()).toBe(
      join(tree, "packages", "app"),
    );
  });

  it("--no-worktree keeps run-scoped state, not the shared state folder", async () => {
    const { run, journal } = world("[worktree]\nenabled = true\n");
    expect((await run(["--no-worktree", "--run-id", "n1"])).exitCode).toBe(0);
    expect(journal().find((x) => x.topic === "loop.start").fields.isolation_mode).toBe(
      "run-scoped",
    );
  });

  it("reads a worktree whose harness died as failed: clean takes it, merge is allowed", async () => {
    const { project, run, wt } = world();
    expect((await run(["--worktree", "--run-id", "k9"])).exitCode).toBe(0);
    const file = join(project, ".autoloop", "worktrees", "k9", "meta.json");
    const meta = JSON.parse(readFileSync(file, "utf8"));
    // As a harness killed mid-run leaves it: still "running", with a pid that is gone.
    writeFileSync(file, JSON.stringify({ ...meta, status: "running", pid: 2 ** 22 + 1 }));
    expect((await wt("merge", "k9")).exitCode).toBe(0);
    writeFileSync(file, JSON.stringify({ ...meta, status: "running", pid: process.pid }));
    expect((await wt("clean")).stdout).toBe("nothing to clean");
    expect((await wt("merge", "k9")).stderr).toContain("is still running");
  });

  it("reports a merge that fails for another reason than a conflict in git's words", async () => {
    const { project, run, wt } = world();
    expect((await run(["--worktree", "--run-id", "u1"])).exitCode).toBe(0);
    // An untracked file where the run's branch has one: git refuses to overwrite it.
    writeFileSync(join(project, "agent-file.txt"), "untracked\n");
    const r = await wt("merge", "u1", "--strategy", "merge");
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("merging run u1 failed (merge)");
    expect(r.stderr).toContain("untracked working tree files would be overwritten");
    expect(readFileSync(join(project, "agent-file.txt"), "utf8")).toBe("untracked\n");
  });

  it("refuses a run id that is not one plain name", async () => {
    const { wt } = world();
    expect((await wt("show", "../../etc")).stderr).toContain("is not a run id");
  });
});
