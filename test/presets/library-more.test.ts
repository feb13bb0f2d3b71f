// The library's jobs for teams (implement-spec, qa-pass, perf-pass, debug-failure,
// test-writer), end to end with the real CLIs (claude, codex, gemini): each runs in its own
// worktree, leaves its work and its report on the run's branch only, passes its evidence gate
// only with the evidence, and completes only after the task gate refused it once.
import { afterEach, describe, expect, it } from "vitest";
import type { LoggedInRun } from "../agents/suite.js";
import { runLoggedIn } from "../agents/suite.js";
import { cleanupTempDirs } from "../helpers/cli.js";
import { git } from "../helpers/git.js";
import { field, topics } from "../helpers/journal.js";
import {
  DEBUG_FAILURE_PLAN,
  IMPLEMENT_SPEC_PLAN,
  PERF_PASS_PLAN,
  QA_PASS_PLAN,
  QA_REPORT,
  TEST_WRITER_PLAN,
} from "../helpers/library-plans.js";
import { presetAgent } from "../helpers/preset-agent.js";
import {
  expectCheckoutUntouched,
  expectGatedCompletion,
  projectWith,
  TIMEOUT,
  worktreeBranch,
} from "./library.js";

afterEach(cleanupTempDirs);

/** The claim without evidence was refused (`blocked` journaled instead), then one passed. */
function expectEvidenceGate(run: LoggedInRun, event: string, blocked: string): void {
  const all = topics(run.journal);
  const refused = run.journal.find((r) => r.topic === blocked);
  expect(field(refused, "gated_event")).toBe(event);
  expect(all.indexOf(blocked)).toBeLessThan(all.indexOf(event));
}

/** The projects' scripts use require(), whatever package.json the temp dir sits under. */
const COMMONJS = { "package.json": '{ "type": "commonjs" }\n' };

/** The files the run's branch changed against main. */
const changed = (project: string, branch: string) =>
  git(project, "diff", "--name-only", `main...${branch}`).trim().split("\n");

describe("the library's jobs for teams", () => {
  it(
    "implement-spec (codex) implements the spec with its test and IMPLEMENT-SPEC.md",
    async () => {
      const files = {
        ...COMMONJS,
        "SPEC.md": "# Spec: greet\n\n1. `greet(name)` returns `hello, <name>`.\n",
        "test.js": "console.log('1 passed');\n",
      };
      const project = projectWith(files);
      const run = await runLoggedIn(
        "codex",
        presetAgent(IMPLEMENT_SPEC_PLAN),
        ["implement-spec", "Implement SPEC.md"],
        { cwd: project },
      );
      expectGatedCompletion(run, ["plan.ready", "build.ready", "review.passed"]);
      expectEvidenceGate(run, "review.passed", "review.blocked");
      const branch = worktreeBranch(run);
      expect(changed(project, branch)).toEqual(["IMPLEMENT-SPEC.md", "greet.js", "greet.test.js"]);
      expect(git(project, "show", `${branch}:greet.js`)).toContain('"hello, " + name');
      expectCheckoutUntouched(project, files);
    },
    TIMEOUT,
  );

  it(
    "qa-pass (claude) reports the crash in QA-PASS.md, and may not fix it",
    async () => {
      const files = {
        ...COMMONJS,
        "README.md": "a tool\n\nRun `node cli.js NAME`.\n",
        "cli.js": "console.log(process.argv[2].toUpperCase());\n",
      };
      const project = projectWith(files);
      const run = await runLoggedIn(
        "claude",
        presetAgent(QA_PASS_PLAN),
        ["qa-pass", "QA the CLI"],
        { cwd: project },
      );
      expectGatedCompletion(run, ["qa.executed", "report.written"]);
      const branch = worktreeBranch(run);
      const attempted = run.server.exchanges.some((e) =>
        JSON.stringify(e.step).includes("/tree/cli.js"),
      );
      expect(attempted).toBe(true);
      expect(changed(project, branch)).toEqual(["QA-PASS.md"]);
      expect(git(project, "show", `${branch}:QA-PASS.md`)).toBe(QA_REPORT);
      expectCheckoutUntouched(project, files);
    },
    TIMEOUT,
  );

  it(
    "perf-pass (codex) keeps the faster sum() with PERF-PASS.md, once measured with figures",
    async () => {
      const files = {
        ...COMMONJS,
        "lib.js":
          "exports.sum = (n) => {\n  let t = 0;\n  for (let i = 1; i <= n; i++) t += i;\n  return t;\n};\n",
        "test.js":
          'const assert = require("node:assert");\nassert.strictEqual(require("./lib.js").sum(100), 5050);\n',
        "bench.js":
          'const t = Date.now();\nrequire("./lib.js").sum(1e6);\nconsole.log(Date.now() - t, "ms");\n',
      };
      const project = projectWith(files);
      const run = await runLoggedIn(
        "codex",
        presetAgent(PERF_PASS_PLAN),
        ["perf-pass", "Make node bench.js faster"],
        { cwd: project },
      );
      expectGatedCompletion(run, ["perf.ready", "perf.measured"]);
      expectEvidenceGate(run, "perf.measured", "perf.blocked");
      const blocked = run.journal.find((r) => r.topic === "perf.blocked");
      expect(field(blocked, "missing_evidence")).toBe("before,after");
      const branch = worktreeBranch(run);
      expect(changed(project, branch)).toEqual(["PERF-PASS.md", "lib.js"]);
      expect(git(project, "show", `${branch}:lib.js`)).toContain("(n * (n + 1)) / 2");
      expectCheckoutUntouched(project, files);
    },
    TIMEOUT,
  );

  it(
    "debug-failure (gemini) fixes the cause with a regression test, explained in DEBUG-FAILURE.md",
    async () => {
      const files = {
        ...COMMONJS,
        "parse.js": 'exports.parse = (s) => s.split(",").map(Number);\n',
        "test.js":
          'const assert = require("node:assert");\nassert.deepStrictEqual(require("./parse.js").parse("1,2"), [1, 2]);\n',
      };
      const project = projectWith(files);
      const run = await runLoggedIn(
        "gemini",
        presetAgent(DEBUG_FAILURE_PLAN),
        ["debug-failure", 'parse("") returns [0]; expected []'],
        { cwd: project },
      );
      expectGatedCompletion(run, ["fix.ready", "fix.verified"]);
      expectEvidenceGate(run, "fix.verified", "fix.blocked");
      const blocked = run.journal.find((r) => r.topic === "fix.blocked");
      expect(field(blocked, "missing_evidence")).toBe("regression");
      const branch = worktreeBranch(run);
      expect(changed(project, branch)).toEqual(["DEBUG-FAILURE.md", "empty.test.js", "parse.js"]);
      expect(git(project, "show", `${branch}:DEBUG-FAILURE.md`)).toContain('Number("") is 0');
      expectCheckoutUntouched(project, files);
    },
    TIMEOUT,
  );

  it(
    "test-writer (claude) adds a test that catches a break, the code untouched",
    async () => {
      const files = {
        ...COMMONJS,
        "lib.js": "exports.clamp = (n, lo, hi) => Math.min(Math.max(n, lo), hi);\n",
        "test.js": "console.log('no tests yet');\n",
      };
      const project = projectWith(files);
      const run = await runLoggedIn(
        "claude",
        presetAgent(TEST_WRITER_PLAN),
        ["test-writer", "Add tests for lib.js"],
        { cwd: project },
      );
      expectGatedCompletion(run, ["tests.written", "tests.passed"]);
      expectEvidenceGate(run, "tests.passed", "tests.blocked");
      const branch = worktreeBranch(run);
      expect(changed(project, branch)).toEqual(["TEST-WRITER.md", "clamp.test.js"]);
      expect(git(project, "show", `${branch}:lib.js`)).toBe(files["lib.js"]);
      expect(git(project, "show", `${branch}:TEST-WRITER.md`)).toContain("caught the lower bound");
      expectCheckoutUntouched(project, files);
    },
    TIMEOUT,
  );
});
