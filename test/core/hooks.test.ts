// Lifecycle hooks through `autoloop run` (real processes): the phases, their records and
// environment, a failure's on_error (warn, block, suspend), the suspend state in the run's
// private folder and `autoloop resume`/`hooks clear-suspend`; where a hook may come from.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { privateRunPaths } from "../../src/harness/control/private-run.js";
import type { JournalRecord } from "../../src/journal/codec.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

/** Iteration 1 commits (so HEAD moves), iteration 2 completes. */
const AGENT = `#!/bin/sh
if [ "$AUTOLOOP_ITERATION" = 1 ]; then git -c user.name=t -c user.email=t@t commit -q --allow-empty -m it; fi
if [ "$AUTOLOOP_ITERATION" = 2 ]; then exec "$AUTOLOOP_BIN" emit task.complete done; fi
`;

function presetIn(dir: string, hooks: string): string {
  const preset = join(dir, "p");
  mkdirSync(preset);
  writeFileSync(join(preset, "agent.sh"), AGENT);
  chmodSync(join(preset, "agent.sh"), 0o755);
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 3\n[backend]\ncommand = ${JSON.stringify(join(preset, "agent.sh"))}\nprompt_mode = "file"\n${hooks}`,
  );
  return preset;
}

const hookRecords = (records: JournalRecord[]) => records.filter((r) => r.topic === "hook.output");
const keysOf = (r: JournalRecord | undefined) => Object.keys(r?.shape === "system" ? r.fields : {});

function setup() {
  const dir = tempDir();
  execFileSync("git", ["init", "-q", dir]);
  execFileSync("git", [
    "-C",
    dir,
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@t",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "0",
  ]);
  const env = { AUTOLOOP_OPERATOR_DIR: join(dir, "op"), XDG_CONFIG_HOME: join(dir, "xdg") };
  return { dir, env };
}

describe("hooks in autoloop run", () => {
  it("runs [hooks] and a user override's [[hook]] around the run and its iterations, never the repo override's", async () => {
    const { dir, env } = setup();
    const preset = presetIn(
      dir,
      `[hooks]\npre_run = "echo pre $AUTOLOOP_RUN_ID $AUTOLOOP_PRESET key=$AGENT_KEY"\npost_run = "echo post $AUTOLOOP_STOP_REASON"\n`,
    );
    // Your own override of the preset: an argv hook, as an array of tables.
    mkdirSync(join(dir, "xdg/autoloop/overrides"), { recursive: true });
    writeFileSync(
      join(dir, "xdg/autoloop/overrides/p.toml"),
      `[[hook]]\nphase = "post_iteration"\ncommand = ["sh", "-c", "echo it=$AUTOLOOP_ITERATION $AUTOLOOP_GIT_SHA_BEFORE $AUTOLOOP_GIT_SHA_AFTER; echo bad >&2; exit 4"]\n`,
    );
    // The project's override, which runs write: its hooks never run.
    mkdirSync(join(dir, ".autoloop/overrides"), { recursive: true });
    writeFileSync(
      join(dir, ".autoloop/overrides/p.toml"),
      `[[hook]]\nphase = "pre_run"\ncommand = "touch ${join(dir, "pwned")}"\n`,
    );
    writeFileSync(join(dir, "agent.env"), "AGENT_KEY=sk-hook-secret-0123456789\n", { mode: 0o600 });
    const run = await autoloop(["run", preset, "go", "--env-file", join(dir, "agent.env")], {
      cwd: dir,
      env,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(existsSync(join(dir, "pwned"))).toBe(false);
    expect(run.stderr).toContain("the hooks of the repo override");
    expect(run.stderr).toContain("warning: hook post_iteration failed (exit 4): bad");

    const records = journalOf(dir);
    const hooks = hookRecords(records);
    expect(hooks.map((r) => `${field(r, "hook")}@${r.iteration ?? ""}`)).toEqual([
      "pre_run@",
      "post_iteration@1",
      "post_iteration@2",
      "post_run@",
    ]);
    for (const r of hooks) expect(keysOf(r)).toEqual(["hook", "exit_code", "output"]);
    const runId = records[0]!.run;
    expect(field(hooks[0], "output")).toBe(`pre ${runId} p key=`);
    const [it, before, after] = field(hooks[1], "output").split("\n")[0]!.split(" ");
    expect([it, before?.length, after?.length]).toEqual(["it=1", 40, 40]);
    expect(before).not.toBe(after);
    expect(field(hooks[1], "exit_code")).toBe("4");
    // The public text: stdout, then stderr after a [stderr] line.
    expect(field(hooks[1], "output")).toBe(`it=1 ${before} ${after}\n\n[stderr]\nbad`);
    // post_run follows the terminal record, as in the public autoloop.
    const complete = records.findIndex((r) => r.topic === "loop.complete");
    expect(records.indexOf(hooks[3]!)).toBeGreaterThan(complete);
    expect(field(hooks[3], "output")).toBe("post completed");
    expect(readFileSync(join(dir, ".autoloop/journal.jsonl"), "utf8")).not.toContain("sk-hook");
  });

  it("gives a hook, which runs the run's own code, no AUTOLOOP_OPERATOR_DIR", async () => {
    const { dir, env } = setup();
    const preset = presetIn(dir, `[hooks]\npre_run = "echo op=$AUTOLOOP_OPERATOR_DIR"\n`);
    const run = await autoloop(["run", preset, "go"], { cwd: dir, env });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(field(hookRecords(journalOf(dir))[0], "output")).toBe("op=");
  });

  it("takes no agent command from the repo override, which runs write, even by hand", async () => {
    const { dir, env } = setup();
    const preset = presetIn(dir, "");
    mkdirSync(join(dir, ".autoloop/overrides"), { recursive: true });
    const pwn = ["sh", "-c", `touch ${join(dir, "pwned")}`];
    writeFileSync(
      join(dir, ".autoloop/overrides/p.toml"),
      `[event_loop]\nmax_iterations = 1\n[backend]\ncommand = "sh"\nargs = ["-c", "touch ${join(dir, "pwned")}"]\n[review]\ncommand = ${JSON.stringify(pwn[0])}\n[[role]]\nid = "r"\nbackend_command = "sh"\n`,
    );
    const run = await autoloop(["run", preset, "go", "--json"], { cwd: dir, env });
    expect(existsSync(join(dir, "pwned"))).toBe(false);
    expect(run.stderr).toContain(
      "backend.command, backend.args, review.command, role.backend_command of the repo override",
    );
    // Its other settings still apply to a run by hand: it stops at its max_iterations.
    expect(run.exitCode, run.stderr).toBe(3);
    expect(JSON.parse(run.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      reason: "max_iterations",
      iterations: 1,
    });
  });

  it("suspends the run on a failing suspend hook; clear-suspend drops the state, resume goes on", async () => {
    const { dir, env } = setup();
    const ok = join(dir, "approved");
    const preset = presetIn(
      dir,
      `[[hook]]\nphase = "pre_iteration"\ncommand = '[ "$AUTOLOOP_ITERATION" != 2 ] || [ -f ${ok} ] || { echo approval needed >&2; exit 1; }'\non_error = "suspend"\n`,
    );
    const run = await autoloop(["run", preset, "go"], { cwd: dir, env });
    expect(run.exitCode, run.stderr).toBe(3);
    const records = journalOf(dir);
    const runId = records[0]!.run;
    const suspend = records.find((r) => r.topic === "hook.suspend");
    expect(keysOf(suspend)).toEqual(["phase", "reason", "hook_command", "resume_iteration"]);
    expect(field(suspend, "reason")).toBe("hook pre_iteration failed (exit 1): approval needed");
    expect(field(suspend, "resume_iteration")).toBe("2");
    const stop = records.find((r) => r.topic === "loop.stop");
    expect(keysOf(stop).slice(0, 3)).toEqual(["reason", "iteration", "detail"]);
    expect([field(stop, "reason"), stop?.iteration]).toEqual(["suspended", "2"]);
    expect(records.filter((r) => r.topic === "iteration.finish")).toHaveLength(1);

    // The state lives in the run's private folder, never where the run's agent writes.
    const journal = join(dir, ".autoloop/journal.jsonl");
    const stateFile = join(privateRunPaths(runId, journal, env).dir, "suspend-state.json");
    const state = JSON.parse(readFileSync(stateFile, "utf8"));
    expect(Object.keys(state)).toEqual([
      "schemaVersion",
      "runId",
      "phase",
      "iteration",
      "reason",
      "hookCommand",
      "createdAt",
      "resumeIteration",
    ]);
    expect(state).toMatchObject({
      schemaVersion: 1,
      runId,
      phase: "pre_iteration",
      resumeIteration: 2,
    });
    expect(readdirSync(join(dir, ".autoloop/runs", runId))).not.toContain("suspend-state.json");

    const cleared = await autoloop(["hooks", "clear-suspend", runId.slice(0, 12), "--json"], {
      cwd: dir,
      env,
    });
    expect(cleared.exitCode, cleared.stderr).toBe(0);
    expect(JSON.parse(cleared.stdout)).toMatchObject({
      clearedSuspend: true,
      clearedResumeRequest: false,
      previousState: { phase: "pre_iteration", runId },
    });
    expect(existsSync(stateFile)).toBe(false);

    // Not yet approved: the resumed run suspends again at iteration 2.
    const again = await autoloop(["resume", runId], { cwd: dir, env });
    expect(again.stdout).toContain(`resumed ${runId} from iteration 2 (was: suspended)`);
    expect(existsSync(stateFile)).toBe(true);
    writeFileSync(ok, "");
    const resumed = await autoloop(["resume", runId], { cwd: dir, env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`resumed ${runId} from iteration 2 (was: suspended)`);
    expect(journalOf(dir).some((r) => r.topic === "loop.complete")).toBe(true);
    // Resuming takes the suspension up: it is gone.
    expect(existsSync(stateFile)).toBe(false);
  });

  it("a strict pre_run that fails stops the run before its agent (error); a hook past its timeout is ended", async () => {
    const { dir, env } = setup();
    const preset = presetIn(dir, `[hooks]\nstrict = true\npre_run = "echo no >&2; exit 2"\n`);
    const run = await autoloop(["run", preset, "go"], { cwd: dir, env });
    expect(run.exitCode, run.stderr).toBe(1);
    const records = journalOf(dir);
    const stop = records.find((r) => r.topic === "loop.stop");
    expect([field(stop, "reason"), field(stop, "detail")]).toEqual([
      "error",
      "Aborting run: hook pre_run failed (exit 2): no",
    ]);
    expect(records.some((r) => r.topic === "iteration.start")).toBe(false);

    const other = tempDir();
    const slow = presetIn(
      other,
      `[[hook]]\nphase = "pre_iteration"\ncommand = ["sh", "-c", "sleep 30 & sleep 30"]\ntimeout_ms = 300\non_error = "block"\n`,
    );
    const started = performance.now();
    const timed = await autoloop(["run", slow, "go"], { cwd: other, env });
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(timed.exitCode, timed.stderr).toBe(1);
    const hook = journalOf(other).find((r) => r.topic === "hook.output");
    expect(keysOf(hook)).toEqual(["hook", "exit_code", "output", "timed_out"]);
    expect(field(hook, "exit_code")).toBe("-1");
    expect(
      field(
        journalOf(other).find((r) => r.topic === "loop.stop"),
        "detail",
      ),
    ).toBe("Aborting run: hook pre_iteration timed out after 300 ms");
  });

  it("a SIGTERM ends the hook under way with the run, and no post_run hook runs after it", async () => {
    const { dir, env } = setup();
    const started = join(dir, "started");
    const preset = presetIn(
      dir,
      `[hooks]\npre_iteration = "touch ${started}; exec sleep 30"\npost_run = "touch ${join(dir, "post")}"\n`,
    );
    const child = autoloop(["run", preset, "go"], { cwd: dir, env });
    await waitFor(() => existsSync(started), "the pre_iteration hook to start", 30_000);
    child.kill("SIGTERM");
    const run = await child;
    expect(run.exitCode, run.stderr).toBe(130);
    expect(run.stderr).toContain("post_run hooks not run: the run was interrupted");
    expect(existsSync(join(dir, "post"))).toBe(false);
    const records = journalOf(dir);
    expect(
      field(
        records.find((r) => r.topic === "hook.output"),
        "exit_code",
      ),
    ).toBe("-1");
    expect(
      field(
        records.find((r) => r.topic === "loop.stop"),
        "reason",
      ),
    ).toBe("interrupted");
  });
});
