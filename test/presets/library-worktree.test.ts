// The code-changing presets of the library (dependency-updates, flaky-test-hunt, docs-drift,
// simplify), end to end with the real claude CLI: each runs in its own worktree by default,
// leaves its changes and its report on the run's branch only, and completes only after the
// gate refused it while a task was open.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runLoggedIn } from "../agents/suite.js";
import { cleanupTempDirs } from "../helpers/cli.js";
import { git } from "../helpers/git.js";
import { field } from "../helpers/journal.js";
import {
  DEPENDENCY_UPDATES_PLAN,
  DOCS_DRIFT_PLAN,
  FLAKY_TEST_HUNT_PLAN,
  presetAgent,
  SIMPLIFY_PLAN,
} from "../helpers/preset-agent.js";
import {
  expectCheckoutUntouched,
  expectGatedCompletion,
  projectWith,
  TIMEOUT,
  worktreeBranch,
} from "./library.js";

afterEach(cleanupTempDirs);

const PACKAGE = `${JSON.stringify(
  {
    name: "app",
    version: "1.0.0",
    scripts: { test: "node test.js" },
    dependencies: { "left-pad": "1.0.0" },
  },
  null,
  2,
)}\n`;

describe("code-changing presets of the library", () => {
  // Codex too: in its sandbox the agent's own commit must reach the repository's .git.
  it.each(["claude", "codex"] as const)(
    "dependency-updates (%s) updates on the run's branch with DEPENDENCY-UPDATES.md, tests passed",
    async (cli) => {
      const files = { "package.json": PACKAGE, "test.js": "console.log('1 passed');\n" };
      const project = projectWith(files);
      const run = await runLoggedIn(
        cli,
        presetAgent(DEPENDENCY_UPDATES_PLAN),
        ["dependency-updates", "Update the dependencies"],
        { cwd: project },
      );
      expectGatedCompletion(run, ["tests.passed"]);
      expect(field(run.journal[0], "isolation_mode")).toBe("worktree");
      const branch = worktreeBranch(run);
      const pkg = JSON.parse(git(project, "show", `${branch}:package.json`));
      expect(pkg.dependencies["left-pad"]).toBe("1.3.0");
      expect(git(project, "show", `${branch}:DEPENDENCY-UPDATES.md`)).toContain(
        "| left-pad | 1.0.0 | 1.3.0 | minor |",
      );
      // Claude commits itself; Codex's sandbox keeps .git read-only, so the harness commits
      // what the run left when it ends.
      expect(git(project, "log", "--format=%s", "main..", branch)).toContain(
        cli === "claude" ? "deps: left-pad 1.0.0 -> 1.3.0" : "autoloop: changes left by run",
      );
      expectCheckoutUntouched(project, files);
      expect(existsSync(join(project, "DEPENDENCY-UPDATES.md"))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    "flaky-test-hunt fixes the flaky test on the run's branch and explains it in FLAKY-TESTS.md",
    async () => {
      // Fails when the second changes between its two reads of the clock.
      const flaky =
        'const assert = require("node:assert");\nconst a = new Date().getSeconds();\nconst b = new Date().getSeconds();\nassert.strictEqual(a, b);\n';
      const files = { "test.js": flaky };
      const project = projectWith(files);
      const run = await runLoggedIn(
        "claude",
        presetAgent(FLAKY_TEST_HUNT_PLAN),
        ["flaky-test-hunt", "Find and fix the flaky tests"],
        { cwd: project },
      );
      expectGatedCompletion(run, ["tests.passed"]);
      const branch = worktreeBranch(run);
      expect(git(project, "show", `${branch}:test.js`)).not.toContain("getSeconds");
      expect(git(project, "show", `${branch}:FLAKY-TESTS.md`)).toContain("test.js > clock: fixed");
      expectCheckoutUntouched(project, files);
    },
    TIMEOUT,
  );

  it.each(["claude", "gemini"] as const)(
    "docs-drift fixes the README on the run's branch; %s may not edit the code",
    async (cli) => {
      const files = {
        "README.md": "a project\n\nRun `node cli.js --verbose`.\n",
        "cli.js": "console.log(process.argv.includes('--quiet') ? '' : 'hello');\n",
      };
      const project = projectWith(files);
      const run = await runLoggedIn(
        cli,
        presetAgent(DOCS_DRIFT_PLAN),
        ["docs-drift", "Fix the docs that no longer match the code"],
        { cwd: project },
      );
      expectGatedCompletion(run, ["docs.checked"]);
      const branch = worktreeBranch(run);
      const attempted = run.server.exchanges.some((e) =>
        JSON.stringify(e.step).includes("/tree/cli.js"),
      );
      expect(attempted).toBe(true);
      expect(git(project, "diff", "--name-only", `main...${branch}`).trim().split("\n")).toEqual([
        "DOCS-DRIFT.md",
        "README.md",
      ]);
      expect(git(project, "show", `${branch}:README.md`)).toContain("--quiet");
      expect(git(project, "show", `${branch}:cli.js`)).toBe(files["cli.js"]);
      expectCheckoutUntouched(project, files);
    },
    TIMEOUT,
  );

  it(
    "simplify simplifies on the run's branch with SIMPLIFY.md, the tests untouched",
    async () => {
      const files = {
        "lib.js":
          "exports.double = (n) => {\n  let total = 0;\n  total += n;\n  total += n;\n  return total;\n};\n",
        "test.js":
          "const assert = require(\"node:assert\");\nassert.strictEqual(require('./lib.js').double(21), 42);\n",
      };
      const project = projectWith(files);
      const run = await runLoggedIn(
        "claude",
        presetAgent(SIMPLIFY_PLAN),
        ["simplify", "Simplify lib.js"],
        { cwd: project },
      );
      expectGatedCompletion(run, ["tests.passed"]);
      const branch = worktreeBranch(run);
      expect(git(project, "show", `${branch}:lib.js`)).toBe("exports.double = (n) => n * 2;\n");
      expect(git(project, "show", `${branch}:test.js`)).toBe(files["test.js"]);
      expect(git(project, "show", `${branch}:SIMPLIFY.md`)).toContain("double() multiplies");
      expectCheckoutUntouched(project, files);
    },
    TIMEOUT,
  );
});
