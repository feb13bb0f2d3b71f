// Turns the monitor's journal patterns (e.g. `/srv/*/.autoloop/journal.jsonl`) into paths;
// re-run periodically (the follower's `discover`) so new projects' journals are picked up.
import { readdir, stat } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { glob, isDynamicPattern } from "tinyglobby";

/** Candidates checked at once by the one-star path: bounds how long the loop is held. */
const STAT_CHUNK = 64;

/**
 * Expands `patterns` relative to `cwd` into sorted absolute paths. A pattern without glob
 * characters is kept even when the file does not exist yet: the follower watches its
 * directory and reads it once a first run creates it.
 */
export async function expandJournalGlobs(
  patterns: readonly string[],
  cwd: string,
): Promise<string[]> {
  const found: string[] = [];
  const other: string[] = [];
  for (const p of patterns) {
    if (!isDynamicPattern(p)) found.push(resolve(cwd, p));
    else {
      const oneStar = await expandOneStar(resolve(cwd, p));
      if (oneStar === undefined) other.push(p);
      else found.push(...oneStar);
    }
  }
  if (other.length > 0) {
    // `dot`: journals live under `.autoloop/`, which a default glob would skip. Only a `**`
    // can wander into node_modules, so only then is every directory matched against it.
    const deep = other.some((p) => p.includes("**"));
    const paths = await glob(other, {
      cwd,
      dot: true,
      onlyFiles: true,
      expandDirectories: false,
      ...(deep && { ignore: ["**/node_modules/**"] }),
    });
    found.push(...paths.map((p) => resolve(cwd, p)));
  }
  return [...new Set(found)].sort();
}

/**
 * The usual shape, a folder, one `*` segment, then literal ones (one project per folder),
 * read in small asynchronous steps. tinyglobby handles it too, but queues a readdir per
 * folder in one synchronous pass: over many projects that held the event loop at every
 * discovery, delaying the alerts due meanwhile. Undefined for any other shape.
 */
async function expandOneStar(absolutePattern: string): Promise<string[] | undefined> {
  const parts = absolutePattern.split(sep);
  const star = parts.findIndex((part) => isDynamicPattern(part));
  const rest = parts.slice(star + 1);
  if (parts[star] !== "*" || rest.length === 0 || rest.some((part) => isDynamicPattern(part)))
    return undefined;
  const base = parts.slice(0, star).join(sep) || sep;
  let names: string[];
  try {
    names = await readdir(base);
  } catch {
    return []; // no such folder (yet): nothing to follow
  }
  const out: string[] = [];
  for (let i = 0; i < names.length; i += STAT_CHUNK) {
    const candidates = names.slice(i, i + STAT_CHUNK).map((name) => join(base, name, ...rest));
    const isFile = await Promise.all(
      candidates.map((path) =>
        stat(path).then(
          (s) => s.isFile(),
          () => false,
        ),
      ),
    );
    candidates.forEach((path, k) => {
      if (isFile[k]) out.push(path);
    });
  }
  return out;
}
