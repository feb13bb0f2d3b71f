// Per-role backend overrides (`backend_*` on a [[role]]) and profiles (`profiles.default`,
// `--profile`, `--no-default-profiles`: role prompt fragments kept outside the preset),
// through `autoloop run` with real agent processes.
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { agentCommand } from "../../src/harness/loop/agent-call.js";
import { presetForRole } from "../../src/harness/loop/role-backend.js";
import { loadPreset } from "../../src/harness/preset/preset.js";
import { permissionFindings } from "../../src/harness/preset/topology-lint.js";
import { runPaths } from "../../src/harness/run-paths.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf } from "../helpers/journal.js";

afterEach(cleanupTempDirs);

function script(dir: string, name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

/** A builder on the preset's backend, a verifier on its own command, args and timeout. */
function twoRolePreset(dir: string, parent = dir): string {
  const builder = script(dir, "builder.sh", `"$AUTOLOOP_BIN" emit build.ready "built"`);
  const verifier = script(
    dir,
    "verifier.sh",
    `printf '%s\\n' "$@" > "${dir}/verifier-argv.txt"\n"$AUTOLOOP_BIN" emit task.complete "verified"`,
  );
  const preset = join(parent, "pair");
  mkdirSync(preset, { recursive: true });
  writeFileSync(
    join(preset, "autoloops.toml"),
    `[event_loop]\nmax_iterations = 3\n\n[backend]\ncommand = ${JSON.stringify(builder)}\n\n[profiles]\ndefault = "repo:strict"\n`,
  );
  writeFileSync(
    join(preset, "topology.toml"),
    `completion = "task.complete"

[[role]]
id = "builder"
emits = ["build.ready"]
prompt = "You build."

[[role]]
id = "verifier"
emits = ["task.complete"]
prompt = "You verify."
backend_command = ${JSON.stringify(verifier)}
backend_args = ["--model", "opus"]
backend_timeout_ms = 60000
backend_model = "opus"

[handoff]
"loop.start" = ["builder"]
"build.ready" = ["verifier"]
`,
  );
  const repo = join(dir, ".autoloop", "profiles", "strict", "pair");
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, "verifier.md"), "STRICT: run the whole suite before you verify.");
  writeFileSync(join(repo, "nobody.md"), "for a role the preset has not");
  // A link a run could plant in the project's .autoloop/, to a file it should not reach.
  writeFileSync(join(dir, "secret.txt"), "SECRET-TOKEN");
  symlinkSync(join(dir, "secret.txt"), join(repo, "builder.md"));
  return preset;
}

describe("per-role backends and profiles", () => {
  it("runs each role on its own backend, its prompt with the profiles' fragments", async () => {
    const dir = tempDir();
    const home = tempDir("autoloop-home-");
    const user = join(home, ".config", "autoloops", "profiles", "mine", "pair");
    mkdirSync(user, { recursive: true });
    writeFileSync(join(user, "builder.md"), "MINE: keep the diff small.");
    const preset = twoRolePreset(dir);
    const r = await autoloop(["run", preset, "ship it", "--profile", "user:mine"], {
      cwd: dir,
      env: { HOME: home },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const journal = journalOf(dir);
    const starts = journal.filter((x) => x.topic === "backend.start");
    expect(starts.map((s) => field(s, "command"))).toEqual([
      join(dir, "builder.sh"),
      join(dir, "verifier.sh"),
    ]);
    // The verifier's own args replace the backend's; its timeout is its own; the role is named.
    expect(JSON.parse(field(starts[1], "args"))).toEqual(["--model", "opus"]);
    expect(field(starts[1], "timeout_ms")).toBe("60000");
    expect(field(starts[1], "role")).toBe("verifier");
    expect(field(starts[0], "role")).toBe("");
    expect(readFileSync(join(dir, "verifier-argv.txt"), "utf8")).toMatch(/^--model\nopus\n/);
    // profiles.default's fragment reaches the verifier, --profile's the builder, each only its own.
    const prompts = journal
      .filter((x) => x.topic === "iteration.start")
      .map((x) => field(x, "prompt"));
    expect(prompts[0]).toContain("You build.\nMINE: keep the diff small.");
    expect(prompts[0]).not.toContain("STRICT");
    expect(prompts[0]).not.toContain("SECRET-TOKEN");
    expect(r.stderr).toContain(
      `profile "repo:strict": ${join(dir, ".autoloop", "profiles", "strict", "pair", "builder.md")} skipped (a link, not a regular file, or over 1 MiB)`,
    );
    expect(prompts[1]).toContain("You verify.\nSTRICT: run the whole suite before you verify.");
    expect(r.stderr).toContain(
      'profile "repo:strict" has fragment for unknown role "nobody" in preset "pair"',
    );
    expect(r.stderr).toContain(
      'role[1].backend_model (role "verifier") (the role\'s ACP model; pass a model flag in backend_args) is not implemented here and is ignored',
    );
  });

  it("leaves profiles.default out with --no-default-profiles, and names a bad profile", async () => {
    const dir = tempDir();
    const preset = twoRolePreset(dir);
    const r = await autoloop(["run", preset, "ship it", "--no-default-profiles", "--quiet"], {
      cwd: dir,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const prompts = journalOf(dir).filter((x) => x.topic === "iteration.start");
    expect(field(prompts[1], "prompt")).not.toContain("STRICT");
    const bad = await autoloop(["run", preset, "x", "--profile", "team:../../etc"], { cwd: dir });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain(
      'autoloop run: profile "team:../../etc" is not "repo:<name>" or "user:<name>"',
    );
    const missing = await autoloop(["run", preset, "x", "--profile", "repo:nope"], { cwd: dir });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(
      `autoloop run: profile "repo:nope" not found: ${join(dir, ".autoloop", "profiles", "nope")} does not exist`,
    );
  });
});

describe("a read-only preset's role with a backend of its own", () => {
  it("is held to the state dir too: validate names the role whose arguments let its agent write", () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "autoloops.toml"),
      '[backend]\ncommand = "true"\n[outputs]\npublish = ["REPORT.md"]\n',
    );
    writeFileSync(
      join(dir, "topology.toml"),
      '[[role]]\nid = "writer"\nbackend_command = "claude"\nbackend_args = ["-p", "--dangerously-skip-permissions"]\n',
    );
    const roles = permissionFindings(loadPreset(dir)).filter((f) => f.field.startsWith("role"));
    expect(roles).toEqual([
      {
        severity: "warning",
        field: 'role "writer".backend_args',
        found: "an agent (claude) that may write in the project (--dangerously-skip-permissions)",
        expected:
          "arguments that hold claude to the run's state dir, since the preset publishes REPORT.md and should change nothing else",
      },
    ]);
  });
});

describe("models and kinds", () => {
  /** A preset on `claude` with a model, and roles on the other CLIs and on a plain command. */
  function modelPreset(dir: string): string {
    const preset = join(dir, "models");
    mkdirSync(preset);
    writeFileSync(
      join(preset, "autoloops.toml"),
      '[event_loop]\nmax_iterations = 1\n[backend]\ncommand = "claude"\nmodel = "opus"\n',
    );
    writeFileSync(
      join(preset, "topology.toml"),
      `[[role]]
id = "builder"
prompt = "b"

[[role]]
id = "coder"
prompt = "c"
backend_kind = "codex"
backend_model = "gpt-5"

[[role]]
id = "critic"
prompt = "r"
backend_kind = "gemini"
backend_model = "pro"
backend_args = ["-m", "flash"]

[[role]]
id = "scripted"
prompt = "s"
backend_command = "./agent.sh"
backend_model = "x"
`,
    );
    return preset;
  }

  it("passes backend.model and a role's backend_model with the CLI's flag; backend_kind selects the CLI", () => {
    const dir = tempDir();
    const preset = loadPreset(modelPreset(dir));
    const paths = runPaths(dir, "r1", preset.config, {});
    const argv = (role: string) => {
      const own = presetForRole(preset, role) ?? preset;
      const a = agentCommand(own, paths, "r1");
      return { agent: a.agent.id, command: a.command, args: a.args };
    };
    expect(argv("builder")).toMatchObject({ agent: "claude", command: "claude" });
    expect(argv("builder").args.slice(-2)).toEqual(["--model", "opus"]);
    expect(argv("coder")).toMatchObject({ agent: "codex", command: "codex" });
    expect(argv("coder").args.join(" ")).toContain("--model gpt-5");
    // The role's own args choose the model: the flag is not passed twice.
    expect(argv("critic").agent).toBe("gemini");
    expect(argv("critic").args.join(" ")).toContain("-m flash");
    expect(argv("critic").args).not.toContain("pro");
    expect(argv("scripted")).toMatchObject({ agent: "command", command: "./agent.sh" });
    expect(argv("scripted").args).not.toContain("x");
    expect(preset.warnings).toEqual([
      'role[3].backend_model (role "scripted") (the role\'s ACP model; pass a model flag in backend_args) is not implemented here and is ignored: agent.sh is a command backend',
    ]);
  });

  it("records the model flag in backend.start when the run launches the CLI", async () => {
    const dir = tempDir();
    const preset = modelPreset(dir);
    writeFileSync(join(preset, "topology.toml"), '[[role]]\nid = "builder"\nprompt = "b"\n');
    // A stand-in named like the CLI, so the harness speaks claude's grammar to it.
    const bin = join(dir, "bin");
    mkdirSync(bin);
    script(bin, "claude", "exit 0");
    const r = await autoloop(["run", preset, "go", "--quiet"], {
      cwd: dir,
      env: { PATH: `${bin}:${process.env.PATH}` },
    });
    expect(r.stderr).not.toContain("model");
    const start = journalOf(dir).find((x) => x.topic === "backend.start");
    expect(JSON.parse(field(start, "args")).slice(-2)).toEqual(["--model", "opus"]);
  });
});

describe("profiles on resume", () => {
  it("applies the profiles the run started with, from its launch record", async () => {
    const dir = tempDir();
    const home = tempDir("autoloop-home-");
    const user = join(home, ".config", "autoloops", "profiles", "mine", "pair");
    mkdirSync(user, { recursive: true });
    writeFileSync(join(user, "verifier.md"), "MINE: verify twice.");
    const preset = twoRolePreset(dir);
    const env = { HOME: home };
    const args = ["--profile", "user:mine", "--no-default-profiles", "--max-iterations", "1"];
    const r = await autoloop(["run", preset, "ship it", "--run-id", "r1", "--quiet", ...args], {
      cwd: dir,
      env,
    });
    expect(r.exitCode, r.stderr).toBe(3);
    const resumed = await autoloop(["resume", "r1"], { cwd: dir, env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const verifier = journalOf(dir).filter((x) => x.topic === "iteration.start")[1];
    expect(field(verifier, "prompt")).toContain("You verify.\nMINE: verify twice.");
    expect(field(verifier, "prompt")).not.toContain("STRICT");
  });
});

describe("profiles.default", () => {
  it("is refused at load (so by validate too) unless each spec is repo:<name> or user:<name>", () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "autoloops.toml"),
      '[backend]\ncommand = "true"\n[profiles]\ndefault = "repo:ok, user:../x"\n',
    );
    expect(() => loadPreset(dir)).toThrow(
      'profiles.default: found "repo:ok, user:../x"; expected profiles "repo:<name>" or "user:<name>"',
    );
    writeFileSync(
      join(dir, "autoloops.toml"),
      '[backend]\ncommand = "true"\n[profiles]\ndefault = ["repo:ok", "user:mine"]\n',
    );
    expect(loadPreset(dir).config.profiles.default).toEqual(["repo:ok", "user:mine"]);
  });
});

describe("profiles in a chain", () => {
  // Changed deliberately: a step took the project's repo profile; the project's .autoloop/ is
  // the runs' to write (step 1 could steer step 2), so only a run started by hand takes one.
  it("gives each step its preset's default user profiles, never a repo profile", async () => {
    const dir = tempDir();
    const preset = twoRolePreset(dir, join(dir, "presets"));
    const toml = join(preset, "autoloops.toml");
    writeFileSync(
      toml,
      readFileSync(toml, "utf8").replace('"repo:strict"', '"repo:strict, user:mine"'),
    );
    const home = join(dir, "home");
    const user = join(home, ".config", "autoloops", "profiles", "mine", "pair");
    mkdirSync(user, { recursive: true });
    writeFileSync(join(user, "verifier.md"), "MINE: check the changelog.");
    const r = await autoloop(["run", "--chain", "pair", "ship it"], {
      cwd: dir,
      env: { HOME: home },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `profile "repo:strict" (${join(dir, ".autoloop", "profiles", "strict")}) is not applied to a chain run`,
    );
    const prompts = journalOf(dir)
      .filter((x) => x.topic === "iteration.start")
      .map((x) => field(x, "prompt"));
    expect(prompts[1]).toContain("You verify.\nMINE: check the changelog.");
    expect(prompts[1]).not.toContain("STRICT");
  });
});

describe("a topology in the public autoloop's style", () => {
  it("runs what the reference reads leniently, warned: an ACP prompt mode, an evidence type it has not", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "autoloops.toml"), '[backend]\ncommand = "true"\n');
    writeFileSync(
      join(dir, "topology.toml"),
      `[[role]]
id = "critic"
emits = ["review.passed"]
backend_prompt_mode = "acp"
backend_args = ["acp"]
colour = "red"

[[gate]]
event = "review.passed"
evidence = [{ key = "e2e", type = "browser" }]
owner = "qa"
`,
    );
    const preset = loadPreset(dir);
    expect(preset.warnings).toEqual([
      'role[0].backend_prompt_mode = "acp" (role "critic") is not implemented here; the role uses backend.prompt_mode',
      'role[0].colour (role "critic") is not implemented here and is ignored',
      "gate[0].owner is not implemented here and is ignored",
      'gate[0].evidence[0].type = "browser" is not one of generic, test, lint, typecheck, coverage, mutation; the key is checked for presence only (generic)',
    ]);
    expect(preset.topology.roles[0]?.backend).toEqual({
      command: undefined,
      args: ["acp"],
      prompt_mode: undefined,
      timeout_ms: undefined,
    });
    expect(preset.topology.gates[0]?.evidence).toEqual([
      { key: "e2e", type: "generic", min: undefined, max: undefined, status: undefined },
    ]);
  });
});
