// The library's jobs for teams (implement-spec, qa-pass, perf-pass, debug-failure,
// test-writer), end to end with the real CLIs (claude, codex, gemini): each runs in its own
// worktree, leaves its work and its report on the run's branch only, passes its evidence gate
// only with the evidence, and completes only after the task gate refused it once.
import { afterEach, describe, expect, it } from "vitest";
import { type LoggedInRun, runLoggedIn } from "../agents/suite.js";
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
import type { Cli } from "../helpers/logged-in.js";
import { type Plan, presetAgent } from "../helpers/preset-agent.js";
import {
  expectCheckoutUntouched,
  expectGatedCompletion,
  projectWith,
  TIMEOUT,
  worktreeBranch,
} from "./library.js";

afterEach(cleanupTempDirs);

interface TeamCase {
  preset: string;
  cli: Cli;
  does: string;
  objective: string;
  /** The project's files, committed on main. */
  files: Record<string, string>;
  plan: Plan;
  required: string[];
  /** The evidence gate: its event, the topic its refusal journals, the keys that were missing. */
  gate?: { event: string; blocked: string; missing: string };
  /** The files the run's branch changed against main, sorted. */
  changed: string[];
  /** A file the agent's Write tool tries to change, which the CLI refuses. */
  refusedWrite?: string;
  /** What must be on the branch: a file's content contains (or is) this text. */
  branchHas: Record<string, string>;
}

/** The projects' scripts use require(), whatever package.json the temp dir sits under. */
const COMMONJS = { "package.json": '{ "type": "commonjs" }\n' };

const CASES: TeamCase[] = [
  {
    preset: "implement-spec",
    cli: "codex",
    does: "implements the spec with its test",
    objective: "Implement SPEC.md",
    files: {
      ...COMMONJS,
      "SPEC.md": "# Spec: greet\n\n1. `greet(name)` returns `hello, <name>`.\n",
      "test.js": "console.log('1 passed');\n",
    },
    plan: IMPLEMENT_SPEC_PLAN,
    required: ["plan.ready", "build.ready", "review.passed"],
    gate: { event: "review.passed", blocked: "review.blocked", missing: "tests" },
    changed: ["IMPLEMENT-SPEC.md", "greet.js", "greet.test.js"],
    branchHas: { "greet.js": '"hello, " + name', "IMPLEMENT-SPEC.md": "greet.test.js" },
  },
  {
    preset: "qa-pass",
    cli: "claude",
    does: "reports the crash, and may not fix it",
    objective: "QA the CLI",
    files: {
      "README.md": "a tool\n\nRun `node cli.js NAME`.\n",
      "cli.js": "console.log(process.argv[2].toUpperCase());\n",
    },
    plan: QA_PASS_PLAN,
    required: ["qa.executed", "report.written"],
    refusedWrite: "cli.js",
    changed: ["QA-PASS.md"],
    branchHas: { "QA-PASS.md": QA_REPORT },
  },
  {
    preset: "perf-pass",
    cli: "codex",
    does: "keeps the faster sum() once measured with figures",
    objective: "Make node bench.js faster",
    files: {
      ...COMMONJS,
      "lib.js":
        "exports.sum = (n) => {\n  let t = 0;\n  for (let i = 1; i <= n; i++) t += i;\n  return t;\n};\n",
      "test.js":
        'const assert = require("node:assert");\nassert.strictEqual(require("./lib.js").sum(100), 5050);\n',
      "bench.js":
        'const t = Date.now();\nrequire("./lib.js").sum(1e6);\nconsole.log(Date.now() - t, "ms");\n',
    },
    plan: PERF_PASS_PLAN,
    required: ["perf.ready", "perf.measured"],
    gate: { event: "perf.measured", blocked: "perf.blocked", missing: "before,after" },
    changed: ["PERF-PASS.md", "lib.js"],
    branchHas: { "lib.js": "(n * (n + 1)) / 2", "PERF-PASS.md": "| sum(): formula |" },
  },
  {
    preset: "debug-failure",
    cli: "gemini",
    does: "fixes the cause with a regression test",
    objective: 'parse("") returns [0]; expected []',
    files: {
      ...COMMONJS,
      "parse.js": 'exports.parse = (s) => s.split(",").map(Number);\n',
      "test.js":
        'const assert = require("node:assert");\nassert.deepStrictEqual(require("./parse.js").parse("1,2"), [1, 2]);\n',
    },
    plan: DEBUG_FAILURE_PLAN,
    required: ["fix.ready", "fix.verified"],
    gate: { event: "fix.verified", blocked: "fix.blocked", missing: "regression" },
    changed: ["DEBUG-FAILURE.md", "empty.test.js", "parse.js"],
    branchHas: { "DEBUG-FAILURE.md": 'Number("") is 0', "parse.js": 's === ""' },
  },
  {
    preset: "test-writer",
    cli: "claude",
    does: "adds a test that catches a break, the code untouched",
    objective: "Add tests for lib.js",
    files: {
      ...COMMONJS,
      "lib.js": "exports.clamp = (n, lo, hi) => Math.min(Math.max(n, lo), hi);\n",
      "test.js": "console.log('no tests yet');\n",
    },
    plan: TEST_WRITER_PLAN,
    required: ["tests.written", "tests.passed"],
    gate: { event: "tests.passed", blocked: "tests.blocked", missing: "tests" },
    changed: ["TEST-WRITER.md", "clamp.test.js"],
    branchHas: { "TEST-WRITER.md": "caught the lower bound" },
  },
];

/** The claim without its evidence was refused (`blocked` journaled instead), then one passed. */
function expectEvidenceGate(run: LoggedInRun, gate: NonNullable<TeamCase["gate"]>): void {
  const all = topics(run.journal);
  const refused = run.journal.find((r) => r.topic === gate.blocked);
  expect(field(refused, "gated_event")).toBe(gate.event);
  expect(field(refused, "missing_evidence")).toBe(gate.missing);
  expect(all.indexOf(gate.blocked)).toBeLessThan(all.indexOf(gate.event));
}

/** Claude's Write tool was asked to change `file` in the run's worktree. */
const writeAttempted = (run: LoggedInRun, file: string) =>
  run.server.exchanges.some(
    (e) =>
      e.step?.kind === "tool" &&
      e.step.name === "Write" &&
      String(e.step.input.file_path).endsWith(`/tree/${file}`),
  );

describe("the library's jobs for teams", () => {
  it.each(CASES.map((c) => [`${c.preset} (${c.cli}) ${c.does}`, c] as const))(
    "%s, on the run's branch only",
    async (_, c) => {
      const project = projectWith(c.files);
      const run = await runLoggedIn(c.cli, presetAgent(c.plan), [c.preset, c.objective], {
        cwd: project,
      });
      expectGatedCompletion(run, c.required);
      if (c.gate !== undefined) expectEvidenceGate(run, c.gate);
      if (c.refusedWrite !== undefined) expect(writeAttempted(run, c.refusedWrite)).toBe(true);
      const branch = worktreeBranch(run);
      // Nothing else changed: QA fixes nothing, test-writer adds tests only.
      const changed = git(project, "diff", "--name-only", `main...${branch}`);
      expect(changed.trim().split("\n")).toEqual(c.changed);
      for (const [file, text] of Object.entries(c.branchHas))
        expect(git(project, "show", `${branch}:${file}`)).toContain(text);
      expectCheckoutUntouched(project, c.files);
    },
    TIMEOUT,
  );
});
