// Presets written for the public autoloop (fixtures in its formats, from its docs): dotted
// keys, keys this harness does not implement (warned by name), other backend kinds, a
// single-file preset with inline roles, harness.instructions_file and `task add -p`.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadPreset } from "../../src/harness/preset/preset.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

/** A `claude` on PATH that prints its argv and completes. */
function fakeClaude(): string {
  const bin = tempDir("autoloop-fake-claude-");
  const file = join(bin, "claude");
  writeFileSync(
    file,
    // Claude's stream-json result event, its answer naming the argv it got.
    `#!${process.execPath}\nconst argv = process.argv.slice(2).map((a) => "[" + a + "]").join(" ");\nconsole.log(JSON.stringify({ type: "result", subtype: "success", is_error: false, result: "ARGV: " + argv + "\\nLOOP_COMPLETE" }));\n`,
  );
  chmodSync(file, 0o755);
  return bin;
}

const REFERENCE_STYLE = `event_loop.max_iterations = 2
event_loop.completion_event = "task.complete"
event_loop.completion_promise = "LOOP_COMPLETE"

backend.kind = "command"
backend.command = "claude"
backend.args = ["-p", "--dangerously-skip-permissions"]
backend.prompt_mode = "file"
backend.timeout_ms = 3000000

review.enabled = true
review.every_iterations = 10

memory.prompt_budget_chars = 8000
harness.instructions_file = "instructions.md"

core.state_dir = ".autoloop"
core.journal_file = ".autoloop/journal.jsonl"

[[gate]]
command = "npm test"
`;

describe("a preset in the public autoloop's style", () => {
  it("runs, naming each key it does not implement, with its own instructions file", async () => {
    const dir = tempDir();
    const preset = join(dir, "autocode");
    mkdirSync(preset);
    writeFileSync(join(preset, "autoloops.toml"), REFERENCE_STYLE);
    writeFileSync(
      join(preset, "instructions.md"),
      "Standing orders: keep the diff small.\nEmit with {{TOOL_PATH}}; notes go to {{STATE_DIR}}.\n",
    );
    const r = await autoloop(["run", preset, "do it", "--quiet"], {
      cwd: dir,
      env: { PATH: `${fakeClaude()}:${process.env.PATH}` },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    // The metareview is implemented now: no warning for [review].
    expect(r.stderr).not.toContain("review");
    expect(r.stderr).toContain("[gate] ([[gate]] checks) is not implemented here and is ignored");
    const journal = readFileSync(join(dir, ".autoloop", "journal.jsonl"), "utf8");
    // Print mode and the unattended flag reach claude; the prompt file carries the instructions.
    expect(journal).toMatch(/ARGV: \[-p\].*\[--dangerously-skip-permissions\]/);
    const promptFile = /\[([^\]]*active-prompt\.md)\]/.exec(journal)?.[1];
    expect(promptFile).toBeDefined();
    const prompt = readFileSync(promptFile!, "utf8");
    expect(prompt).toContain("Standing orders: keep the diff small.");
    // Placeholders in the instructions are the run's own paths.
    const runDir = join(
      dir,
      ".autoloop",
      "runs",
      /runs\/([^/]+)\/active-prompt/.exec(promptFile!)![1]!,
    );
    expect(prompt).toContain(`Emit with ${join(runDir, "autoloops")}; notes go to ${runDir}.`);
  });

  it("runs other backend kinds as their CLI, and says so", () => {
    const dir = tempDir();
    for (const [kind, command] of [
      ["claude-sdk", "claude"],
      ["pi", "pi"],
      ["acp", "kiro-cli"],
    ]) {
      const preset = join(dir, kind!);
      mkdirSync(preset);
      writeFileSync(
        join(preset, "autoloops.toml"),
        `[backend]\nkind = "${kind}"\n${kind === "acp" ? 'command = "kiro-cli"\nprovider = "kiro"\n' : ""}`,
      );
      const p = loadPreset(preset);
      expect(p.config.backend).toMatchObject({ kind: "command", command });
      expect(p.warnings[0]).toBe(
        `backend.kind = "${kind}" is not implemented here; running "${command}" as a command backend instead${kind === "acp" ? " (ignoring backend.provider)" : ""}`,
      );
    }
  });

  it("warns about an ACP agent mode in backend.agent and picks the agent by the command", () => {
    const preset = join(tempDir(), "acp");
    mkdirSync(preset);
    writeFileSync(
      join(preset, "autoloops.toml"),
      '[backend]\nkind = "acp"\ncommand = "claude"\nagent = "gpu-dev"\n',
    );
    const p = loadPreset(preset);
    expect(p.config.backend).toMatchObject({ kind: "command", command: "claude" });
    expect(p.config.backend.agent).toBeUndefined();
    expect(p.warnings).toContain(
      'backend.agent = "gpu-dev" (an ACP agent of another harness) is not implemented here and is ignored; the agent is chosen by backend.command (or backend.agent = "claude", "codex", "gemini", "command")',
    );
  });

  it("loads a single-file preset: config, topology and inline role prompts in one .toml", async () => {
    const dir = tempDir();
    const file = join(dir, "architect.toml");
    writeFileSync(
      file,
      `name = "architect"
completion = "task.complete"

[event_loop]
max_iterations = 3
completion_promise = "ARCHITECT_DONE"

[backend]
command = "sh"
args = ["-c", "cat \\"$0\\" > prompt-seen.md; echo ARCHITECT_DONE"]
prompt_mode = "file"

[[role]]
id = "inspector"
emits = ["context.ready"]
prompt = """
You are the inspector. Write findings to {{STATE_DIR}}/context.md.
"""

[[role]]
id = "finalizer"
emits = ["task.complete"]
prompt = "You are the finalizer."

[handoff]
"loop.start" = ["inspector"]
"context.ready" = ["finalizer"]

[[stage]]
id = "verify"
kind = "verdict"
`,
    );
    const p = loadPreset(file);
    expect(p.name).toBe("architect");
    expect(p.topology.roles.map((r) => r.id)).toEqual(["inspector", "finalizer"]);
    expect(p.warnings).toEqual([
      "[stage] ([[stage]] fan-out branches) is not implemented here and is ignored",
    ]);
    const r = await autoloop(["run", file, "design it", "--quiet"], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(0);
    const prompt = readFileSync(join(dir, "prompt-seen.md"), "utf8");
    expect(prompt).toContain("You are the inspector. Write findings to");
    expect(prompt).toContain(join(dir, ".autoloop", "runs"));
  });

  it("names a harness.instructions_file that is missing or outside the preset", () => {
    const dir = tempDir();
    for (const [value, expected] of [
      ['"nope.md"', "an existing file"],
      ['"../outside.md"', "a path inside the preset folder"],
    ]) {
      writeFileSync(
        join(dir, "autoloops.toml"),
        `[backend]\ncommand = "true"\n[harness]\ninstructions_file = ${value}\n`,
      );
      expect(() => loadPreset(dir)).toThrow(
        new RegExp(`harness\\.instructions_file.*${expected}`, "s"),
      );
    }
  });

  it("takes task add -p high", async () => {
    const dir = tempDir();
    const add = await autoloop(["task", "add", "-p", "high", "fix the flaky test"], { cwd: dir });
    expect(add.exitCode, add.stderr).toBe(0);
    const list = await autoloop(["task", "list", "--json"], { cwd: dir });
    expect(JSON.parse(list.stdout).open[0]).toMatchObject({
      priority: "high",
      text: "fix the flaky test",
    });
  });
});
