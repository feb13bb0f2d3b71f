// Turns the monitor's journal patterns (e.g. `/srv/*/.autoloop/journal.jsonl`) into paths;
// re-run periodically (the follower's `discover`) so new projects' journals are picked up.
import { resolve } from "node:path";
import { glob, isDynamicPattern } from "tinyglobby";

/**
 * Expands `patterns` relative to `cwd` into sorted absolute paths. A pattern without glob
 * characters is kept even when the file does not exist yet: the follower watches its
 * directory and reads it once a first run creates it.
 */
export async function expandJournalGlobs(
  patterns: readonly string[],
  cwd: string,
): Promise<string[]> {
  const literal = patterns.filter((p) => !isDynamicPattern(p)).map((p) => resolve(cwd, p));
  const dynamic = patterns.filter((p) => isDynamicPattern(p));
  // `dot`: journals live under `.autoloop/`, which a default glob would skip.
  const found =
    dynamic.length === 0
      ? []
      : await glob(dynamic, {
          cwd,
          absolute: true,
          dot: true,
          onlyFiles: true,
          expandDirectories: false,
          ignore: ["**/node_modules/**"],
        });
  return [...new Set([...literal, ...found.map((p) => resolve(p))])].sort();
}
