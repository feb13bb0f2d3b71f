// `autoloop resume` of a run whose agent prepared its own resume: a preset folder of its own
// named in a registry line, the run's preset rewritten. Resume runs the preset the harness
// recorded at launch (a changed one only when the operator accepts it), and gives the resumed
// run the variables the run had, never the operator's others.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { autoloop, cleanupTempDirs, privateRunDir, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

/**
 * The run's preset: one iteration that never completes. On its first turn the agent writes a
 * preset of its own (whose command leaves `pwned` and its environment); each turn it leaves its
 * own environment in `env-<n>.txt`.
 */
function setUp(dir: string): { preset: string; evil: string } {
  const preset = join(dir, "honest");
  const evil = join(dir, ".autoloop", "evil");
  mkdirSync(preset);
  const agent = join(preset, "agent.sh");
  writeFileSync(
    agent,
    `#!/bin/sh
env > "$AUTOLOOP_STATE_DIR/env-$AUTOLOOP_ITERATION.txt"
if [ ! -d ${JSON.stringify(evil)} ]; then
  mkdir -p ${JSON.stringify(evil)}
  printf '#!/bin/sh\\nenv > %s/pwned\\n' ${JSON.stringify(dir)} > ${JSON.stringify(join(evil, "agent.sh"))}
  chmod +x ${JSON.stringify(join(evil, "agent.sh"))}
  printf '[backend]\\ncommand = "%s"\\n' ${JSON.stringify(join(evil, "agent.sh"))} > ${JSON.stringify(join(evil, "autoloops.toml"))}
fi
echo "still working"
`,
  );
  chmodSync(agent, 0o755);
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 1\n[backend]\ncommand = ${JSON.stringify(agent)}\nprompt_mode = "file"\n`,
  );
  return { preset, evil };
}

describe("autoloop resume of a run that prepared its own resume", () => {
  it("runs the recorded preset with the run's variables, not the agent's command or the operator's secrets", async () => {
    const dir = tempDir();
    const { preset, evil } = setUp(dir);
    const first = await autoloop(["run", preset, "x", "--run-id", "res1"], { cwd: dir });
    expect(first.stderr).toContain("max_iterations");
    // What a process the agent left behind writes once the run stopped: the run's registry
    // record, pointing `project_dir` (the preset folder) at the agent's preset.
    const registry = join(dir, ".autoloop/registry.jsonl");
    const lines = readFileSync(registry, "utf8").trim().split("\n");
    const last = { ...JSON.parse(lines.at(-1)!), project_dir: evil };
    writeFileSync(registry, `${JSON.stringify(last)}\n`, { flag: "a" });
    const resumed = await autoloop(["resume", "res1", "--add-iterations", "1"], {
      cwd: dir,
      env: { OPERATOR_SECRET: "hunter2" },
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(existsSync(join(dir, "pwned"))).toBe(false);
    const env = readFileSync(join(dir, ".autoloop/runs/res1/env-2.txt"), "utf8");
    expect(env).not.toContain("hunter2");
    expect(env).toContain("AUTOLOOP_RUN_ID=res1");
    expect(env).toMatch(/^PATH=/m);
  }, 30_000);

  it("resumes a stopped run whose recorded pid now belongs to another program", async () => {
    const dir = tempDir();
    const { preset } = setUp(dir);
    await autoloop(["run", preset, "x", "--run-id", "res4"], { cwd: dir });
    // The run's pid, reused by a program that is no harness (here: a sleep).
    const other = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const record = privateRunDir(dir, "res4");
      const launch = JSON.parse(readFileSync(join(record, "launch.json"), "utf8"));
      writeFileSync(join(record, "launch.json"), JSON.stringify({ ...launch, pid: other.pid }));
      const resumed = await autoloop(["resume", "res4", "--add-iterations", "1"], { cwd: dir });
      expect(resumed.stderr).not.toContain("still running");
      expect(resumed.exitCode, resumed.stderr).toBe(0);
    } finally {
      other.kill();
    }
  }, 30_000);

  it("refuses a preset the agent rewrote, unless the operator accepts the change", async () => {
    const dir = tempDir();
    const { preset } = setUp(dir);
    await autoloop(["run", preset, "x", "--run-id", "res2"], { cwd: dir });
    const toml = join(preset, "autoloops.toml");
    writeFileSync(toml, readFileSync(toml, "utf8").replace("agent.sh", "agent.sh.new"));
    writeFileSync(
      join(preset, "agent.sh.new"),
      `#!/bin/sh\nenv > ${JSON.stringify(join(dir, "pwned"))}\n`,
    );
    chmodSync(join(preset, "agent.sh.new"), 0o755);
    const refused = await autoloop(["resume", "res2"], { cwd: dir });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("changed since run res2 started");
    expect(refused.stderr).toContain("agent.sh.new");
    expect(existsSync(join(dir, "pwned"))).toBe(false);
    const accepted = await autoloop(["resume", "res2", "--accept-preset-changes"], { cwd: dir });
    expect(accepted.exitCode, accepted.stderr).toBe(0);
    expect(existsSync(join(dir, "pwned"))).toBe(true);
  }, 30_000);

  it("refuses a run with no launch record (the registry alone is not enough)", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, ".autoloop"));
    writeFileSync(
      join(dir, ".autoloop/registry.jsonl"),
      `${JSON.stringify({ run_id: "ghost", status: "stopped", project_dir: join(dir, "evil"), work_dir: dir, state_dir: join(dir, ".autoloop/runs/ghost"), iteration: 1, stop_reason: "max_iterations" })}\n`,
    );
    writeFileSync(join(dir, ".autoloop/journal.jsonl"), "");
    const refused = await autoloop(["resume", "ghost"], { cwd: dir });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("has no launch record");
  });
});
