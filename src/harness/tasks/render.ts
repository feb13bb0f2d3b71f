// The tasks block and context-pressure line of the iteration prompt (docs/formats.md).
import type { TaskEntry } from "./entry.js";
import type { TaskView } from "./materialize.js";

export const DEFAULT_PROMPT_BUDGET_CHARS = 4000;

function tags(task: TaskEntry): string {
  let out = "";
  if (task.priority !== "normal") out += `[${task.priority}] `;
  if (task.soft) out += "[soft] ";
  return out;
}

export function taskLine(task: TaskEntry): string {
  return task.status === "done"
    ? `- [x] [${task.id}] ${tags(task)}${task.text} (done)`
    : `- [ ] [${task.id}] ${tags(task)}${task.text}`;
}

/**
 * Renders the `Tasks:` block, or "" when there are no tasks. With a positive budget,
 * lines are kept from the top while they fit, then a truncation note is added.
 */
export function renderTasksBlock(
  view: TaskView,
  budgetChars = DEFAULT_PROMPT_BUDGET_CHARS,
): string {
  if (view.open.length + view.done.length === 0) return "";
  const lines: Array<{ text: string; isEntry: boolean }> = [{ text: "Tasks:", isEntry: false }];
  if (view.open.length > 0) {
    lines.push({ text: "Open:", isEntry: false });
    for (const t of view.open) lines.push({ text: taskLine(t), isEntry: true });
  }
  if (view.done.length > 0) {
    lines.push({ text: "Done:", isEntry: false });
    for (const t of view.done) lines.push({ text: taskLine(t), isEntry: true });
  }
  if (budgetChars <= 0) return lines.map((l) => l.text).join("\n");
  const kept: string[] = [];
  let used = 0;
  let index = 0;
  for (; index < lines.length; index++) {
    const cost = lines[index]!.text.length + 1;
    if (used + cost > budgetChars) break;
    kept.push(lines[index]!.text);
    used += cost;
  }
  const dropped = lines.slice(index).filter((l) => l.isEntry).length;
  if (dropped > 0) kept.push(`(tasks truncated: ${dropped} entries dropped)`);
  return kept.join("\n");
}

/** `Tasks: 2 open, 1 done (3 total)`. */
export function tasksPressureLine(view: TaskView): string {
  const total = view.open.length + view.done.length;
  return `Tasks: ${view.open.length} open, ${view.done.length} done (${total} total)`;
}
