// The `Loop memory:` block of an iteration prompt (docs/formats.md, "Memory"): project memory,
// then run memory, newest first, cut on line boundaries to the budget with a footer.
import { entryCount, type MemoryView } from "./materialize.js";

function tierLines(title: string, v: MemoryView): string[] {
  if (entryCount(v) === 0) return [];
  const out = [`${title}:`];
  if (v.preferences.length > 0)
    out.push("Preferences:", ...v.preferences.map((e) => `- [${e.id}] [${e.category}] ${e.text}`));
  if (v.learnings.length > 0)
    out.push("Learnings:", ...v.learnings.map((e) => `- [${e.id}] (${e.source}) ${e.text}`));
  if (v.meta.length > 0)
    out.push("Meta:", ...v.meta.map((e) => `- [${e.id}] ${e.key}: ${e.value}`));
  return out;
}

export interface RenderedMemory {
  /** "" when there is no memory at all. */
  text: string;
  /** Characters of the full block before any cut. */
  fullChars: number;
  entries: number;
  dropped: number;
}

/** The block within `budget` characters (0: no limit); entries past it are dropped from the end. */
export function renderMemory(project: MemoryView, run: MemoryView, budget: number): RenderedMemory {
  const p = tierLines("Project memory", project);
  const r = tierLines("Run memory", run);
  const entries = entryCount(project) + entryCount(run);
  if (p.length + r.length === 0) return { text: "", fullChars: 0, entries: 0, dropped: 0 };
  const lines = ["Loop memory:", ...p, ...(p.length > 0 && r.length > 0 ? [""] : []), ...r];
  const full = lines.join("\n");
  if (budget <= 0 || full.length <= budget)
    return { text: full, fullChars: full.length, entries, dropped: 0 };
  const kept: string[] = [];
  let size = 0;
  let dropped = 0;
  // From the bottom: run memory goes before project memory, meta before learnings.
  for (const [i, line] of lines.entries()) {
    if (size + line.length + 1 > budget) {
      dropped = lines.slice(i).filter((l) => l.startsWith("- [")).length;
      break;
    }
    kept.push(line);
    size += line.length + 1;
  }
  kept.push(
    `(memory truncated: ${dropped} entries dropped to fit memory.prompt_budget_chars = ${budget})`,
  );
  return { text: kept.join("\n"), fullChars: full.length, entries, dropped };
}
