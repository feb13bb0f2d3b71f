// The scripted plans of the library's jobs for teams (implement-spec, qa-pass, perf-pass,
// debug-failure, test-writer): a first role that files task-1 and does the work, a last role
// whose first claim its evidence gate (if any) refuses, then the task gate, then completion.
import { type Action, gatedCompletion, type Plan } from "./preset-agent.js";

/** The claim without its evidence (refused by the preset's evidence gate), then with it. */
const evidenced = (event: string, evidence: string): Action[] => [
  { shell: `{tool} emit ${event} "looks good"` },
  { shell: `{tool} emit ${event} "${evidence}"` },
];

// Codex keeps .git read-only: its `git add` fails after the files are written, and the
// harness commits what the run left.
const commit = (message: string) => `git add -A && git commit -qm '${message}'`;

export const IMPLEMENT_SPEC_PLAN: Plan = {
  planner: [
    { shell: "cat SPEC.md && node test.js" },
    { shell: `{tool} task add "1: greet(name) returns hello, name"` },
    { shell: `{tool} emit plan.ready "1 task"` },
    { answer: "Planned 1 requirement." },
  ],
  builder: [
    {
      shell: `printf 'exports.greet = (name) => "hello, " + name;\\n' > greet.js && printf 'const assert = require("node:assert");\\nassert.strictEqual(require("./greet.js").greet("ada"), "hello, ada");\\n' > greet.test.js && node greet.test.js && printf '# Implementation\\n\\n- 1: greet() in greet.js, shown by greet.test.js\\n' > IMPLEMENT-SPEC.md && ${commit("1: greet()")}`,
    },
    { shell: `{tool} emit build.ready "1 requirement done"` },
    { answer: "Implemented greet()." },
  ],
  critic: [
    { shell: "node test.js && node greet.test.js" },
    ...evidenced("review.passed", "tests=2 passed"),
    ...gatedCompletion("1 requirement"),
    { answer: "The spec is implemented." },
  ],
};

export const QA_REPORT =
  "# QA report\n\n1 check, 1 finding: 0 critical, 1 high.\n\n## high: node cli.js with no name\n\nCrashes with a TypeError; expected a usage line.\n";

export const QA_PASS_PLAN: Plan = {
  tester: [
    { shell: "node cli.js ada; node cli.js; echo exit=$?" },
    // A fix, which QA must not make: the CLI refuses the edit.
    { read: "{tree}/cli.js" },
    { write: "{tree}/cli.js", content: "console.log((process.argv[2] ?? '').toUpperCase());\n" },
    { shell: `{tool} task add --priority high "high: node cli.js with no name: TypeError"` },
    { write: "{state}/findings.md", content: "## high: node cli.js\n\nTypeError.\n" },
    { shell: `{tool} emit qa.executed "1 finding"` },
    { answer: "Exercised the CLI: 1 finding." },
  ],
  reporter: [
    { shell: "node cli.js; echo exit=$?" },
    { write: "{tree}/QA-PASS.md", content: QA_REPORT },
    { shell: `git status --short && ${commit("qa: 1 high")}` },
    { shell: `{tool} emit report.written "QA-PASS.md"` },
    ...gatedCompletion("1 high"),
    { answer: "The QA report is written: 1 high." },
  ],
};

export const PERF_PASS_PLAN: Plan = {
  optimizer: [
    { shell: "git rev-parse HEAD > {state}/base-commit && node test.js && node bench.js" },
    { shell: `{tool} task add "lib.js: sum() loops where a formula does"` },
    {
      shell: `printf 'exports.sum = (n) => (n * (n + 1)) / 2;\\n' > lib.js && node test.js && printf '# Perf\\n\\n| change | before | after |\\n|---|---|---|\\n| sum(): formula | 9 ms | 0 ms |\\n' > PERF-PASS.md && ${commit("perf: sum() by formula")}`,
    },
    { shell: `{tool} emit perf.ready "9 ms -> 0 ms"` },
    { answer: "sum() is a formula now." },
  ],
  verifier: [
    { shell: "node test.js && node bench.js" },
    ...evidenced("perf.measured", "before=9ms after=0ms tests=1 passed"),
    ...gatedCompletion("sum() 9 ms -> 0 ms"),
    { answer: "Measured: faster, tests green." },
  ],
};

export const DEBUG_FAILURE_PLAN: Plan = {
  investigator: [
    {
      shell: `git rev-parse HEAD > {state}/base-commit; node -e 'console.log(require("./parse.js").parse(""))'`,
    },
    { shell: `{tool} task add "parse of an empty string returns [0], not []"` },
    {
      shell: `printf 'exports.parse = (s) => (s === "" ? [] : s.split(",").map(Number));\\n' > parse.js && printf 'const assert = require("node:assert");\\nassert.deepStrictEqual(require("./parse.js").parse(""), []);\\n' > empty.test.js && node empty.test.js && printf '# Debug\\n\\nparse(""): "".split(",") is [""], and Number("") is 0. Fixed in parse.js:1; empty.test.js.\\n' > DEBUG-FAILURE.md && ${commit("fix: parse() of an empty string")}`,
    },
    { shell: `{tool} emit fix.ready "empty input split to one empty field"` },
    { answer: "Found and fixed the cause." },
  ],
  verifier: [
    { shell: "node test.js && node empty.test.js" },
    ...evidenced("fix.verified", "tests=2 passed regression=empty.test.js"),
    ...gatedCompletion("parse() of an empty string fixed"),
    { answer: "The fix is verified." },
  ],
};

export const TEST_WRITER_PLAN: Plan = {
  writer: [
    { shell: "node test.js" },
    { shell: `{tool} task add "lib.js:clamp: values below, inside and above the range"` },
    {
      // The new test, the break it must catch, the break undone.
      shell: `printf 'const assert = require("node:assert");\\nconst { clamp } = require("./lib.js");\\nassert.strictEqual(clamp(-5, 0, 10), 0);\\nassert.strictEqual(clamp(5, 0, 10), 5);\\nassert.strictEqual(clamp(15, 0, 10), 10);\\n' > clamp.test.js && node clamp.test.js && sed -i 's/Math.max(n, lo)/n/' lib.js && ! node clamp.test.js 2>/dev/null && git checkout -- lib.js && printf '# Tests added\\n\\n- clamp.test.js: clamp() below, inside, above; caught the lower bound dropped\\n' > TEST-WRITER.md && ${commit("test: clamp()")}`,
    },
    { shell: `{tool} emit tests.written "1 test file, 1 gap"` },
    { answer: "Covered clamp()." },
  ],
  verifier: [
    { shell: "node test.js && node clamp.test.js && git diff --stat main" },
    ...evidenced("tests.passed", "tests=2 passed"),
    ...gatedCompletion("clamp() covered"),
    { answer: "The new tests pass and catch a break." },
  ],
};
