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
 * One action: a shell command, a file written, or an answer; `{tool}`, `{state}`, `{project}`
 * and `{iteration}` are filled in from the prompt.
 */
export type Action = { shell: string } | { write: string; content: string } | { answer: string };

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

/** The script: the first suggested role's actions, one per model call, then its answer. */
export function presetAgent(plan: Plan): Script {
  return (turn) => {
    const role = suggestedRoles(turn.prompt)[0] ?? "";
    const actions = plan[role] ?? [{ answer: `no plan for role ${role}` }];
    const action = actions[Math.min(turn.toolOutputs.length, actions.length - 1)]!;
    if ("shell" in action) return { kind: "shell", command: fill(action.shell, turn) };
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
