// What the scheduler hands a run at launch, as copies in the run's own area
// (`<project>/.autoloop/cron/<run-id>/`): its schedule's history, its schedule's recent runs
// (for `autoloop runs`), a hook's payload. A run is never told where the daemon's state dir
// is; these copies are the run's to read (and to spoil: the daemon never reads them back).
import { lstatSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { linkUnder } from "../../util/untrusted-file.js";

export function handoverDir(projectDir: string, runId: string): string {
  return join(resolve(projectDir), ".autoloop", "cron", runId);
}

/**
 * Writes `files` (name → content) into the run's hand-over folder and returns their paths;
 * undefined when that cannot be done safely (a link planted on the way, a file already there,
 * a read-only project): the run then starts without them.
 */
export function handOver(
  projectDir: string,
  runId: string,
  files: Record<string, string | Buffer>,
): Record<string, string> | undefined {
  const dir = handoverDir(projectDir, runId);
  if (linkUnder(resolve(projectDir), dir) !== undefined) return undefined;
  try {
    mkdirSync(join(dir, ".."), { recursive: true, mode: 0o700 });
    // Made here, or by an earlier hand-over of this launch (a hook's payload after the history);
    // files are created new (O_EXCL), so nothing planted there is written through.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!lstatSync(dir).isDirectory()) return undefined;
    const paths: Record<string, string> = {};
    for (const [name, content] of Object.entries(files)) {
      paths[name] = join(dir, name);
      writeFileSync(paths[name], content, { flag: "wx", mode: 0o400 });
    }
    return paths;
  } catch {
    return undefined;
  }
}

/**
 * Removes the run's hand-over folder once the run ended. Only the folder named by its own run
 * id: a folder listing in a project the run wrote could be turned, by a link planted between
 * the check and the removal, into a listing of another folder.
 */
export function removeHandover(projectDir: string, runId: string): void {
  const dir = handoverDir(projectDir, runId);
  if (linkUnder(resolve(projectDir), dir) !== undefined) return;
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // Left for the operator: a few small copies.
  }
}
