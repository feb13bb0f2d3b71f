// A schedule that asks for worktree isolation: validated, passed to the harness as
// --worktree, and run by `autoloop-cron fire --foreground` in the run's own tree.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { launchArgv } from "../../src/scheduler/launch/spec.js";
import {
  parseScheduleFile,
  scheduleDefaults,
} from "../../src/scheduler/schedules/schedule-file.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { writeCronConfig } from "../helpers/daemon.js";
import { GIT_ENV, git } from "../helpers/git.js";

afterEach(cleanupTempDirs);

const entry = (extra: string) =>
  `[[schedule]]\nname = "nightly"\ncron = "0 3 * * *"\npreset = "p"\nobjective = "o"\n${extra}\n`;

describe("isolation in a schedule", () => {
  it("is worktree or shared, for presets only, and becomes the harness's flag", () => {
    const dir = tempDir();
    const config = writeCronConfig(dir, "");
    const ctx = { fileDir: join(dir, "schedules"), configDir: dir };
    const parse = (text: string) =>
      parseScheduleFile("schedules/x.toml", text, scheduleDefaults(config), ctx);
    const ok = parse(entry('isolation = "worktree"'));
    expect(ok.problems).toEqual([]);
    expect(ok.schedules[0]).toMatchObject({ kind: "preset", isolation: "worktree" });
    const bad = parse(entry('isolation = "sandbox"'));
    expect(bad.problems[0]).toMatchObject({ field: "schedule[0].isolation" });
    expect(bad.problems[0]?.expected).toContain('"worktree"');
    const command = parse(
      '[[schedule]]\nname = "c"\ncron = "0 3 * * *"\nkind = "command"\ncommand = ["true"]\nisolation = "worktree"\n',
    );
    expect(command.problems[0]).toMatchObject({
      field: "schedule[0].isolation",
      expected: 'no isolation when kind = "command"',
    });
    const base = {
      kind: "preset" as const,
      harness: ["autoloop"],
      preset: "p",
      objective: "o",
      runId: "nightly-20260101T0300-abcde",
      schedule: "nightly",
      slot: new Date(0),
      cwd: dir,
      outputPath: join(dir, "out.log"),
    };
    expect(launchArgv({ ...base, isolation: "worktree" })).toContain("--worktree");
    expect(launchArgv({ ...base, isolation: "shared" })).toContain("--no-worktree");
    expect(launchArgv(base).join(" ")).not.toMatch(/worktree/);
  });

  it("runs a fired slot in the run's own worktree", async () => {
    const dir = tempDir();
    const project = join(dir, "work");
    const preset = join(dir, "presets", "writer");
    mkdirSync(preset, { recursive: true });
    writeFileSync(
      join(preset, "autoloops.toml"),
      `[event_loop]\nmax_iterations = 1\nstall_iterations = 0\n[backend]\ncommand = "sh"\nargs = ["-c", "pwd > where.txt; echo LOOP_COMPLETE"]\nprompt_mode = "file"\n`,
    );
    writeCronConfig(
      dir,
      `[[schedule]]\nname = "nightly"\ncron = "0 3 * * *"\npreset = "writer"\nobjective = "write"\nproject_dir = "../work"\nisolation = "worktree"\n`,
    );
    git(project, "init", "-q", "-b", "main");
    git(project, "commit", "-q", "--allow-empty", "-m", "init");
    const fired = await execa(
      process.execPath,
      [
        AUTOLOOP_CRON,
        "fire",
        "nightly",
        "--foreground",
        "--config",
        join(dir, "autoloop-cron.toml"),
      ],
      { reject: false, env: cleanEnv(GIT_ENV), extendEnv: false },
    );
    expect(fired.exitCode, fired.stderr + fired.stdout).toBe(0);
    const start = readFileSync(join(project, ".autoloop", "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((r) => r.topic === "loop.start");
    expect(start.fields.isolation_mode).toBe("worktree");
    const tree = start.fields.worktree_path as string;
    expect(tree).toBe(join(project, ".autoloop", "worktrees", start.run, "tree"));
    expect(readFileSync(join(tree, "where.txt"), "utf8").trim()).toBe(tree);
    expect(start.fields.worktree_branch).toBe(`autoloop/${start.run}`);
  });
});
