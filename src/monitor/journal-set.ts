// Which journals the monitor follows: explicit `--journal` paths, or the config's `[monitor]
// journals` globs plus the journal of every loaded schedule (docs/formats.md: one per project dir).
import { join, resolve } from "node:path";
import { expandJournalGlobs } from "../journal/journal-globs.js";

/** Where a run started in `projectDir` writes its journal. */
export function projectJournal(projectDir: string): string {
  return join(resolve(projectDir), ".autoloop", "journal.jsonl");
}

export interface JournalSources {
  /** `--journal` paths; when given, only these are followed. */
  explicit?: readonly string[];
  /** `[monitor] journals` patterns (absolute). */
  globs: readonly string[];
  /** Project dirs of the loaded schedules (read on every call: schedules are reloaded). */
  projectDirs: () => Iterable<string>;
  /** Relative patterns and paths resolve against this folder. */
  cwd: string;
}

/** Every journal to follow, absolute and sorted; missing files are kept (followed once created). */
export async function journalPaths(sources: JournalSources): Promise<string[]> {
  if (sources.explicit !== undefined && sources.explicit.length > 0)
    return [...new Set(sources.explicit.map((p) => resolve(sources.cwd, p)))].sort();
  const found = await expandJournalGlobs(sources.globs, sources.cwd);
  const own = [...sources.projectDirs()].map(projectJournal);
  return [...new Set([...found, ...own])].sort();
}
