// The live view of a memory file: tombstoned and repeated ids dropped, one value per meta
// key (the newest), each category newest first.
import { liveNewestFirst } from "../store/jsonl-store.js";
import type { LearningEntry, MemoryFileEntry, MetaEntry, PreferenceEntry } from "./entry.js";

export interface MemoryView {
  preferences: PreferenceEntry[];
  learnings: LearningEntry[];
  meta: MetaEntry[];
}

export function materializeMemory(entries: readonly MemoryFileEntry[]): MemoryView {
  const view: MemoryView = { preferences: [], learnings: [], meta: [] };
  const keys = new Set<string>();
  for (const e of liveNewestFirst(entries, "tombstone")) {
    if (e.type === "meta") {
      if (keys.has(e.key)) continue;
      keys.add(e.key);
      view.meta.push(e);
    } else if (e.type === "preference") view.preferences.push(e);
    else view.learnings.push(e);
  }
  return view;
}

export const entryCount = (v: MemoryView) =>
  v.preferences.length + v.learnings.length + v.meta.length;
