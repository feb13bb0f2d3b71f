// A schedule that runs a chain: validated against the project's chains.toml, launched as
// `autoloop chain run <name>`, and recorded in the ledger by how the chain ended.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { launchArgv } from "../../src/scheduler/launch/spec.js";
import { validateAll } from "../../src/scheduler/schedules/validate.js";
import { AUTOLOOP, AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { writeCronConfig } from "../helpers/daemon.js";

afterEach(cleanupTempDirs);

function world(chainSteps: string) {
  const dir = tempDir("autoloop-chain-schedule-");
  const work = join(dir, "work");
  for (const [name, script] of [
    ["ok", "echo LOOP_COMPLETE"],
    ["broken", "exit 7"],
  ]) {
    mkdirSync(join(work, "presets", name!), { recursive: true });
    writeFileSync(
      join(work, "presets", name!, "autoloops.toml"),
      `[event_loop]\nmax_iterations = 1\nstall_iterations = 0\n[backend]\ncommand = "sh"\nargs = ["-c", "${script}"]\nprompt_mode = "file"\n`,
    );
  }
  const config = writeCronConfig(
    dir,
    `[[schedule]]\nname = "nightly-chain"\ncron = "0 3 * * *"\nkind = "chain"\nchain = "ship"\nobjective = "ship it"\nproject_dir = "../work"\n`,
  );
  writeFileSync(join(work, "chains.toml"), `[[chain]]\nname = "ship"\nsteps = [${chainSteps}]\n`);
  const fire = () =>
    execa(
      process.execPath,
      [
        AUTOLOOP_CRON,
        "fire",
        "nightly-chain",
        "--foreground",
        "--config",
        join(dir, "autoloop-cron.toml"),
      ],
      { reject: false, env: cleanEnv(), extendEnv: false },
    );
  return { dir, work, config, fire };
}

describe('kind = "chain"', () => {
  it("is launched as the harness's chain run, with the scheduled run id", () => {
    const argv = launchArgv({
      kind: "chain",
      harness: ["autoloop"],
      chain: "ship",
      objective: "ship it",
      runId: "nightly-chain-20260101T0300-abcde",
      schedule: "nightly-chain",
      slot: new Date(0),
      cwd: "/w",
      outputPath: "/o.log",
      envFiles: ["/etc/keys.env"],
    });
    expect(argv).toEqual([
      "autoloop",
      "chain",
      "run",
      "ship",
      "ship it",
      "--trigger",
      "cron",
      "--run-id",
      "nightly-chain-20260101T0300-abcde",
      "--env-file",
      "/etc/keys.env",
    ]);
  });

  it("puts an objective that starts with a dash after --, so it is never read as an option", () => {
    const argv = launchArgv({
      kind: "preset",
      harness: ["autoloop"],
      preset: "p",
      objective: "-- fix the --force flag",
      runId: "n-20260101T0300-abcde",
      schedule: "n",
      slot: new Date(0),
      cwd: "/w",
      outputPath: "/o.log",
      maxIterations: 3,
    });
    expect(argv.slice(-2)).toEqual(["--", "-- fix the --force flag"]);
    expect(argv).toContain("--max-iterations");
  });

  it("names a chain that chains.toml lacks, with the nearest name", () => {
    const { config, work } = world('"ok"');
    writeFileSync(join(work, "chains.toml"), '[[chain]]\nname = "shipit"\nsteps = ["ok"]\n');
    const report = validateAll(config);
    expect(report.problems).toEqual([
      expect.objectContaining({
        field: "schedule[0].chain",
        found: '"ship"',
        expected: expect.stringContaining('did you mean "shipit"?'),
      }),
    ]);
  });

  it("records a completed chain as completed, and a failed step as the chain's failure", async () => {
    const good = world('"ok", "ok"');
    const r = await good.fire();
    expect(r.exitCode, r.stderr + r.stdout).toBe(0);
    const records = readFileSync(join(good.work, ".autoloop", "journal.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const chainStart = records.find((x) => x.topic === "chain.start");
    expect(chainStart.run).toMatch(/^nightly-chain-\d{8}T\d{4}-[0-9a-z]{5}$/);
    expect(chainStart.fields.trigger).toBe("cron");
    expect(
      records.filter((x) => x.topic === "loop.start").map((x) => x.fields.parent_run_id),
    ).toEqual([chainStart.run, chainStart.run]);
    // The event tool replays a chain run step by step.
    const stateArgs = ["--state-dir", join(good.dir, "state"), "--schedule", "nightly-chain"];
    const replay = await execa(
      process.execPath,
      [AUTOLOOP, "runs", "replay", chainStart.run, ...stateArgs],
      { env: cleanEnv(), extendEnv: false },
    );
    expect(replay.stdout).toContain(`Run ${chainStart.run} of nightly-chain: completed`);
    expect(replay.stdout).toContain(`# Scratchpad of ${chainStart.run}-step-1`);
    expect(replay.stdout).toContain(`# Scratchpad of ${chainStart.run}-step-2`);
    const oneStep = await execa(
      process.execPath,
      [AUTOLOOP, "runs", "replay", `${chainStart.run}-step-2`, ...stateArgs],
      { env: cleanEnv(), extendEnv: false },
    );
    expect(oneStep.stdout).toContain(`# Scratchpad of ${chainStart.run}-step-2`);
    expect(oneStep.stdout).not.toContain(`# Scratchpad of ${chainStart.run}-step-1`);

    const bad = world('"ok", "broken"');
    const f = await bad.fire();
    expect(f.exitCode).not.toBe(0);
    expect(f.stdout + f.stderr).toMatch(/failed/);
  });
});

describe("a chain schedule's step presets", () => {
  it("are found in the config's presets_dir, by validate and by the run alike", async () => {
    const { dir, fire } = world('"ok"');
    // The step's preset lives only in the scheduler's presets_dir, not in the project.
    mkdirSync(join(dir, "presets", "only-here"), { recursive: true });
    writeFileSync(
      join(dir, "presets", "only-here", "autoloops.toml"),
      `[event_loop]\nmax_iterations = 1\nstall_iterations = 0\n[backend]\ncommand = "sh"\nargs = ["-c", "echo LOOP_COMPLETE"]\nprompt_mode = "file"\n`,
    );
    writeFileSync(
      join(dir, "work", "chains.toml"),
      `[[chain]]\nname = "ship"\nsteps = ["only-here"]\n`,
    );
    const config = writeCronConfig(
      dir,
      `[[schedule]]\nname = "nightly-chain"\ncron = "0 3 * * *"\nkind = "chain"\nchain = "ship"\nobjective = "ship it"\nproject_dir = "../work"\n`,
    );
    expect((await validateAll(config)).problems).toEqual([]);
    const run = await fire();
    expect(run.exitCode, run.stderr).toBe(0);
    writeFileSync(
      join(dir, "work", "chains.toml"),
      `[[chain]]\nname = "ship"\nsteps = ["nowhere"]\n`,
    );
    const problems = (await validateAll(config)).problems.map((p) => p.expected);
    expect(problems.join("\n")).toContain('step 1: preset "nowhere" not found');
  }, 60_000);
});
