// `autoloop list` and `autoloop init --preset`: the presets a run finds from a folder (the
// project's first, the bundled ones after, a shadowed one marked), and a copy to change that
// `autoloop run` then uses instead of the bundled one.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const BUNDLED = [
  "autofix",
  "debug-failure",
  "demo",
  "dependency-updates",
  "docs-drift",
  "flaky-test-hunt",
  "implement-spec",
  "perf-pass",
  "qa-pass",
  "review",
  "security-review",
  "simplify",
  "test-writer",
  "weekly-summary",
];

describe("autoloop list", () => {
  it("lists the bundled presets, one line each, and as JSON", async () => {
    const dir = tempDir("autoloop-list-");
    const json = await autoloop(["list", "--json"], { cwd: dir });
    expect(json.exitCode, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((r) => r.name)).toEqual(BUNDLED);
    expect(rows.find((r) => r.name === "security-review")).toMatchObject({
      source: "bundled",
      roles: ["auditor", "verifier"],
      publishes: ["SECURITY-REVIEW.md"],
      shadowed: false,
    });
    expect(rows.find((r) => r.name === "simplify")).toMatchObject({ isolation: "worktree" });
    expect(rows.every((r) => typeof r.job === "string" && r.job !== "")).toBe(true);
    const text = await autoloop(["list"], { cwd: dir });
    expect(text.stdout.split("\n")[0]).toMatch(/^PRESET\s+SOURCE\s+AGENT\s+ROLES\s+JOB$/);
    expect(text.stdout).toMatch(
      /^security-review\s+bundled\s+read-only\s+auditor, verifier\s+look for security problems/m,
    );
  });

  it("puts the project's presets first, marks a bundled one they shadow, and says which does not load", async () => {
    const dir = tempDir("autoloop-list-");
    mkdirSync(join(dir, "presets", "broken"), { recursive: true });
    writeFileSync(join(dir, "presets", "broken", "autoloops.toml"), "[event_loop\n");
    const init = await autoloop(["init", "--preset", "review"], { cwd: dir });
    expect(init.exitCode, init.stderr).toBe(0);
    const rows = JSON.parse((await autoloop(["list", "--json"], { cwd: dir })).stdout) as Array<
      Record<string, unknown>
    >;
    expect(rows.slice(0, 2).map((r) => [r.name, r.source])).toEqual([
      ["broken", "project"],
      ["review", "project"],
    ]);
    expect(rows[0]!.problem).toContain("autoloops.toml");
    expect(rows.find((r) => r.name === "review" && r.source === "bundled")?.shadowed).toBe(true);
  });
});

describe("autoloop init --preset", () => {
  it("copies a bundled preset to presets/, which autoloop run then uses", async () => {
    const dir = tempDir("autoloop-init-");
    const copied = await autoloop(["init", "--preset", "demo", "--as", "my-demo"], { cwd: dir });
    expect(copied.exitCode, copied.stderr).toBe(0);
    expect(copied.stdout).toContain("presets/my-demo");
    const harness = join(dir, "presets", "my-demo", "harness.md");
    expect(readFileSync(harness, "utf8")).toBe(
      readFileSync(join(import.meta.dirname, "..", "..", "presets", "demo", "harness.md"), "utf8"),
    );
    const run = await autoloop(["run", "my-demo", "Write the report"], { cwd: dir });
    expect(run.exitCode, run.stderr).toBe(0);
    const registry = readFileSync(join(dir, ".autoloop", "registry.jsonl"), "utf8");
    expect(registry).toContain('"preset":"my-demo"');
  });

  it("refuses to overwrite a copy unless told, and refuses what it cannot copy", async () => {
    const dir = tempDir("autoloop-init-");
    expect((await autoloop(["init", "--preset", "demo"], { cwd: dir })).exitCode).toBe(0);
    writeFileSync(join(dir, "presets", "demo", "harness.md"), "changed\n");
    const again = await autoloop(["init", "--preset", "demo"], { cwd: dir });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain("already exists; change it there, or add --force");
    expect(readFileSync(join(dir, "presets", "demo", "harness.md"), "utf8")).toBe("changed\n");
    const forced = await autoloop(["init", "--preset", "demo", "--force"], { cwd: dir });
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(readFileSync(join(dir, "presets", "demo", "harness.md"), "utf8")).not.toBe("changed\n");
    const unknown = await autoloop(["init", "--preset", "nope"], { cwd: dir });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('preset "nope" not found');
    const badName = await autoloop(["init", "--preset", "demo", "--as", "../escape"], { cwd: dir });
    expect(badName.exitCode).toBe(2);
    expect(badName.stderr).toContain("is not a preset name");
    expect(existsSync(join(dir, "escape"))).toBe(false);
    const missing = await autoloop(["init"], { cwd: dir });
    expect(missing.stderr).toContain("--preset NAME is required");
  });
});
