// A scripted agent for the bundled presets: by the role the harness suggests, the commands a
// diligent agent would run (through the CLI's shell tool) and the answer it would give.
import {
  eventTool,
  type Script,
  type Step,
  suggestedRoles,
  type Turn,
} from "./model-server/index.js";

/**
 * One action: a shell command, a file read or written, or an answer; `{tool}`, `{state}`, `{project}`,
 * `{tree}` (the run's worktree, in worktree isolation) and `{iteration}` are filled in from the
 * prompt.
 */
export type Action =
  | { shell: string }
  | { read: string }
  | { write: string; content: string }
  | { answer: string };

export type Plan = Readonly<Record<string, readonly Action[]>>;

/** The loop's state dir, from the prompt ("Loop-owned working files belong under: <dir>"). */
export function stateDirOf(prompt: string): string {
  const match = /^Loop-owned working files belong under: (.+)$/m.exec(prompt);
  if (match === null) throw new Error("the prompt names no state dir");
  return match[1]!;
}

function fill(text: string, turn: Turn): string {
  const state = stateDirOf(turn.prompt);
  return text
    .replaceAll("{tool}", eventTool(turn.prompt))
    .replaceAll("{state}", state)
    .replaceAll("{tree}", `${state.replace(/\/runs\/([^/]+)$/, "/worktrees/$1")}/tree`)
    .replaceAll("{project}", state.replace(/\/\.autoloop\/.*$/, ""))
    .replaceAll("{iteration}", /^Iteration: (\d+)/m.exec(turn.prompt)?.[1] ?? "?");
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** A file written the CLI's way: Claude's Write tool, Gemini's write_file, Codex's shell. */
function writeStep(turn: Turn, path: string, content: string): Step {
  if (turn.api === "anthropic")
    return { kind: "tool", name: "Write", input: { file_path: path, content } };
  if (turn.api === "gemini")
    return { kind: "tool", name: "write_file", input: { file_path: path, content } };
  return { kind: "shell", command: `printf '%s' ${quote(content)} > ${quote(path)}` };
}

/** A file read the CLI's way (Claude writes over a file only once it has read it). */
function readStep(turn: Turn, path: string): Step {
  if (turn.api === "anthropic") return { kind: "tool", name: "Read", input: { file_path: path } };
  if (turn.api === "gemini") return { kind: "tool", name: "read_file", input: { file_path: path } };
  return { kind: "shell", command: `cat ${quote(path)}` };
}

/** The script: the first suggested role's actions, one per model call, then its answer. */
export function presetAgent(plan: Plan): Script {
  return (turn) => {
    const role = suggestedRoles(turn.prompt)[0] ?? "";
    const actions = plan[role] ?? [{ answer: `no plan for role ${role}` }];
    const action = actions[Math.min(turn.toolOutputs.length, actions.length - 1)]!;
    if ("shell" in action) return { kind: "shell", command: fill(action.shell, turn) };
    if ("read" in action) return readStep(turn, fill(action.read, turn));
    if ("write" in action)
      return writeStep(turn, fill(action.write, turn), fill(action.content, turn));
    return { kind: "answer", text: fill(action.answer, turn) };
  };
}

export const AUTOFIX_PLAN: Plan = {
  fixer: [
    { shell: `{tool} emit fix.ready "fixed the failing test"` },
    { answer: "Fixed the failing test and handed it to the verifier." },
  ],
  verifier: [
    { shell: `{tool} emit tests.passed "all tests pass"` },
    { shell: `{tool} emit task.complete "the suite is green"` },
    { answer: "All tests pass; the fix is complete." },
  ],
};

export const REVIEW_PLAN: Plan = {
  reviewer: [
    { write: "{state}/review.md", content: "# Review\n\nNo problems found.\n" },
    { shell: `{tool} emit review.drafted "0 findings"` },
    { answer: "Drafted the review: no findings." },
  ],
  critic: [
    { write: "{state}/REVIEW.md", content: "# Review\n\nNo problems found.\n" },
    { shell: `{tool} emit report.written "REVIEW.md"` },
    { shell: `{tool} emit task.complete "review done"` },
    { answer: "The review is final." },
  ],
};

// The preset library (presets/security-review ... presets/simplify). Each final role adds a
// task, is refused at the completion gate while it is open, closes it and completes.

/** The last role's steps: the gate refuses completion while task-1 is open, then it passes. */
export const gatedCompletion = (summary: string): Action[] => [
  { shell: `{tool} emit task.complete "${summary}"` },
  { shell: "{tool} task complete task-1" },
  { shell: `{tool} emit task.complete "${summary}"` },
];

export const SECURITY_REVIEW_REPORT =
  "# Security review\n\n1 finding: 0 critical, 1 high, 0 medium, 0 low.\n\n## high: README.md:1\n\nNo authentication is described.\n";

export const SECURITY_REVIEW_PLAN: Plan = {
  auditor: [
    { write: "{state}/findings.md", content: "## high: README.md:1\n\nNo authentication.\n" },
    { shell: `{tool} task add --priority high "high: README.md:1: no authentication"` },
    { shell: `{tool} emit findings.drafted "1 finding"` },
    { answer: "Drafted 1 finding." },
  ],
  verifier: [
    { write: "{state}/SECURITY-REVIEW.md", content: SECURITY_REVIEW_REPORT },
    { shell: `{tool} emit report.written "SECURITY-REVIEW.md"` },
    ...gatedCompletion("1 high"),
    { answer: "The security review is final: 1 high." },
  ],
};

export const WEEKLY_SUMMARY_REPORT =
  "# Week in review\n\n## Shipped\n\n- The project was started.\n";

export const WEEKLY_SUMMARY_PLAN: Plan = {
  collector: [
    { shell: `git log --since="7 days ago" --format="%h %s"` },
    { write: "{state}/changes.md", content: "## Start\n\n- init\n" },
    { shell: `{tool} task add "start: init"` },
    { shell: `{tool} emit changes.collected "1 commit, 1 topic"` },
    { answer: "Collected 1 topic." },
  ],
  writer: [
    { write: "{state}/WEEKLY-SUMMARY.md", content: WEEKLY_SUMMARY_REPORT },
    { shell: `{tool} emit report.written "WEEKLY-SUMMARY.md"` },
    ...gatedCompletion("1 topic"),
    { answer: "The weekly summary is written." },
  ],
};

export const DEPENDENCY_UPDATES_PLAN: Plan = {
  updater: [
    { shell: `{tool} task add "update left-pad 1.0.0 -> 1.3.0"` },
    {
      shell:
        "npm pkg set dependencies.left-pad=1.3.0 && printf '| left-pad | 1.0.0 | 1.3.0 | minor |\\n' > DEPENDENCY-UPDATES.md && git add -A && git commit -qm 'deps: left-pad 1.0.0 -> 1.3.0'",
    },
    { shell: `{tool} emit updates.ready "1 updated"` },
    { answer: "Updated left-pad and wrote the summary." },
  ],
  verifier: [
    { shell: "npm test" },
    { shell: `{tool} emit tests.passed "npm test: 1 passed"` },
    ...gatedCompletion("left-pad updated"),
    { answer: "The tests pass; the update is complete." },
  ],
};

export const FLAKY_TEST_HUNT_PLAN: Plan = {
  hunter: [
    { shell: "node test.js; node test.js; node test.js" },
    { shell: `{tool} task add "test.js > clock: fails when the second changes"` },
    {
      shell:
        "printf 'const assert = require(\"node:assert\");\\nassert.ok(true);\\n' > test.js && printf '# Flaky tests\\n\\ntest.js > clock: fixed (read the clock once)\\n' > FLAKY-TESTS.md && git add -A && git commit -qm 'test: clock read twice'",
    },
    { shell: `{tool} emit flakes.handled "1 fixed"` },
    { answer: "Fixed the flaky clock test." },
  ],
  verifier: [
    // The claim only when the runs pass: a test.js that cannot run leaves the gate shut.
    {
      shell: `node test.js && node test.js && node test.js && {tool} emit tests.passed "node test.js: 3 of 3 runs pass"`,
    },
    ...gatedCompletion("1 flaky test fixed"),
    { answer: "Three runs pass; the hunt is complete." },
  ],
};

export const DOCS_DRIFT_PLAN: Plan = {
  auditor: [
    // Code, outside the docs: the CLI refuses it (read first, or Claude refuses it anyway).
    { read: "{tree}/cli.js" },
    { write: "{tree}/cli.js", content: "console.log('changed');\n" },
    { shell: `{tool} task add "README.md:3: says --verbose, cli.js has --quiet"` },
    { read: "{tree}/README.md" },
    { write: "{tree}/README.md", content: "a project\n\nRun `node cli.js --quiet`.\n" },
    {
      write: "{tree}/DOCS-DRIFT.md",
      content: "# Docs drift\n\n- README.md:3: --verbose is now --quiet (cli.js:1)\n",
    },
    { shell: `{tool} emit docs.fixed "1 fixed"` },
    { answer: "Fixed the README." },
  ],
  checker: [
    { shell: "git status --porcelain" },
    { shell: `{tool} emit docs.checked "1 fix checked"` },
    ...gatedCompletion("1 drift fixed"),
    { answer: "The docs match the code." },
  ],
};

export const SIMPLIFY_PLAN: Plan = {
  simplifier: [
    { shell: "node test.js" },
    { shell: `{tool} task add "lib.js: double() adds twice where it can multiply"` },
    {
      shell:
        "printf 'exports.double = (n) => n * 2;\\n' > lib.js && printf '# Simplify\\n\\n- lib.js: double() multiplies\\n' > SIMPLIFY.md && git add -A && git commit -qm 'simplify: double()'",
    },
    { shell: `{tool} emit simplify.ready "1 change"` },
    { answer: "Simplified double()." },
  ],
  verifier: [
    { shell: `node test.js && {tool} emit tests.passed "node test.js passes"` },
    ...gatedCompletion("1 simplification"),
    { answer: "The tests pass; the pass is complete." },
  ],
};
