// `autoloop runs clean`: which run folders (`.autoloop/runs/<run-id>/`) can go — those of runs
// not live, untouched for longer than the age given — and removing them. The decision is pure;
// the journal and the registry, the history of every run, are never touched.
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { RegistryEntry } from "../../journal/registry-view.js";
import { autoloopDirOf, isLive, type ProcessCheck } from "./runs.js";

export interface RunFolder {
  name: string;
  mtimeMs: number;
}

export type CleanDecision =
  | { kind: "remove"; name: string }
  | { kind: "keep"; name: string; why: "live" | "recent" };

/** A run is live while the registry says so and its recorded process (if any) still exists. */
export function liveRunIds(runs: readonly RegistryEntry[], running: ProcessCheck): Set<string> {
  return new Set(runs.filter((r) => isLive(r) && running(r)).map((r) => r.run_id));
}

/** `maxAgeMs` 0 removes every folder of a run not live, whatever its age. */
export function planClean(
  folders: readonly RunFolder[],
  live: ReadonlySet<string>,
  maxAgeMs: number,
  now: number,
): CleanDecision[] {
  return folders.map((f): CleanDecision => {
    if (live.has(f.name)) return { kind: "keep", name: f.name, why: "live" };
    if (maxAgeMs > 0 && now - f.mtimeMs < maxAgeMs)
      return { kind: "keep", name: f.name, why: "recent" };
    return { kind: "remove", name: f.name };
  });
}

export function runsFolder(workDir: string): string {
  return join(autoloopDirOf(workDir), "runs");
}

/** The run folders, by their own times (a link is never followed, nor anything but a folder). */
export function listRunFolders(workDir: string): RunFolder[] {
  let names: string[];
  try {
    names = readdirSync(runsFolder(workDir));
  } catch {
    return [];
  }
  const folders: RunFolder[] = [];
  for (const name of names) {
    const stat = lstatSync(join(runsFolder(workDir), name), { throwIfNoEntry: false });
    if (stat?.isDirectory()) folders.push({ name, mtimeMs: stat.mtimeMs });
  }
  return folders.sort((a, b) => a.name.localeCompare(b.name));
}

export function removeRunFolder(workDir: string, name: string): void {
  rmSync(join(runsFolder(workDir), name), { recursive: true, force: true });
}
