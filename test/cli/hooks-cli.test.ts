// `autoloop hooks list|show|validate`: the public autoloop's output shapes and exit codes.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

function preset(dir: string, name: string, hooks: string): string {
  const p = join(dir, name);
  mkdirSync(p);
  writeFileSync(join(p, "autoloops.toml"), `[backend]\ncommand = "true"\n${hooks}`);
  return p;
}

describe("autoloop hooks", () => {
  it("lists and shows a preset's hooks by phase; an unknown phase exits 1", async () => {
    const dir = tempDir();
    const env = { XDG_CONFIG_HOME: join(dir, "xdg") };
    const p = preset(
      dir,
      "p",
      `[hooks]\npre_run = "echo a"\n[[hook]]\nphase = "post_iteration"\ncommand = ["sync", "push"]\non_error = "suspend"\n`,
    );
    const listed = await autoloop(["hooks", "list", p, "--json"], { cwd: dir, env });
    expect(listed.exitCode, listed.stderr).toBe(0);
    const { hooks } = JSON.parse(listed.stdout);
    expect(hooks.map((h: Record<string, unknown>) => Object.keys(h))[0]).toEqual([
      "phase",
      "command",
      "onError",
      "mutate",
      "source",
      "timeoutMs",
    ]);
    expect(hooks.map((h: { source: string }) => h.source)).toEqual(["legacy", "hook[0]"]);
    const shown = await autoloop(["hooks", "show", "post_iteration", p], { cwd: dir, env });
    expect(shown.stdout).toContain('command=["sync","push"] on_error=suspend');
    const bad = await autoloop(["hooks", "show", "mid_run", p], { cwd: dir, env });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('unknown phase "mid_run"; expected one of: pre_run, post_run');
    // A hook set where runs write would never run: refused, pointing at your own override.
    const repo = await autoloop(["config", "set", "--repo", "--preset", "p", "hooks.pre_run=x"], {
      cwd: dir,
      env,
    });
    expect(repo.exitCode).toBe(1);
    expect(repo.stderr).toContain("would never run");
    // So would an agent's command there.
    const command = await autoloop(
      ["config", "set", "--repo", "--preset", "p", "backend.command=sh"],
      { cwd: dir, env },
    );
    expect([command.exitCode, command.stderr]).toEqual([
      1,
      expect.stringContaining("backend.command in the repo override"),
    ]);
  });

  it("validate: errors in the public shape exit 1; what a hook cannot do here is a warning", async () => {
    const dir = tempDir();
    const broken = preset(dir, "broken", `[[hook]]\nphase = "during"\ncommand = "x"\n`);
    const r = await autoloop(["hooks", "validate", broken, "--json"], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.valid).toBe(false);
    expect(out.errors).toEqual([
      expect.objectContaining({ index: 0, field: "phase", value: "during" }),
    ]);
    const risky = preset(
      dir,
      "risky",
      `[[hook]]\nphase = "post_run"\ncommand = "./sync.sh"\non_error = "block"\n`,
    );
    const w = await autoloop(["hooks", "validate", risky], { cwd: dir });
    expect(w.exitCode, w.stderr).toBe(0);
    expect(w.stdout).toContain("warning: hook[0].on_error");
    expect(w.stdout).toContain(
      'warning: hook[0].command: found "./sync.sh", a file of the work dir',
    );
  });
});
