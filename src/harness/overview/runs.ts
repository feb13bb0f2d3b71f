// A work dir's runs as the operator's verbs see them (`autoloop loops`): the registry's last
// record per run, newest first, found by a unique id prefix. The registry is written by runs,
// so every field here is what a run said about itself.
import { hostname } from "node:os";
import { join } from "node:path";
import { type RegistryEntry, readRegistry } from "../../journal/registry-view.js";
import { isProcessAlive } from "../../util/process.js";

/** A run still owning its loop; everything else has ended one way or another. */
export const LIVE_STATUSES: ReadonlySet<string> = new Set(["running", "waiting"]);

export const isLive = (r: RegistryEntry) => LIVE_STATUSES.has(r.status);

/** Whether a run's recorded process may still be there. */
export type ProcessCheck = (r: RegistryEntry) => boolean;

/**
 * A run's process is known gone only when it ran on this host (the registry's `host`) and its
 * pid no longer exists; another host's run, or one without a pid, cannot be judged from here.
 */
export function processCheck(alive: (pid: number) => boolean, here: string): ProcessCheck {
  return (r) =>
    r.pid === undefined ||
    (typeof r.host === "string" && r.host !== "" && r.host !== here) ||
    alive(r.pid);
}

/** `<workDir>/.autoloop/`, where the journal, the registry and `runs/` live. */
export const autoloopDirOf = (workDir: string) => join(workDir, ".autoloop");

/** Every run in the registry, the most recently updated first. */
export function readRuns(workDir: string): RegistryEntry[] {
  const runs = [...readRegistry(join(autoloopDirOf(workDir), "journal.jsonl")).values()];
  return runs.sort((a, b) => text(b.updated_at).localeCompare(text(a.updated_at)));
}

export type RunLookup =
  | { kind: "found"; run: RegistryEntry }
  | { kind: "none"; query: string }
  | { kind: "ambiguous"; query: string; matches: string[] };

/** The run whose id is `query`, else the one run whose id starts with it. */
export function findRun(runs: readonly RegistryEntry[], query: string): RunLookup {
  const exact = runs.find((r) => r.run_id === query);
  if (exact !== undefined) return { kind: "found", run: exact };
  const matches = query === "" ? [] : runs.filter((r) => r.run_id.startsWith(query));
  if (matches.length === 1) return { kind: "found", run: matches[0]! };
  if (matches.length === 0) return { kind: "none", query };
  return { kind: "ambiguous", query, matches: matches.map((r) => r.run_id) };
}

/** The fields the list shows, under the public autoloop's `loops --json` names. */
export function runSummary(r: RegistryEntry): Record<string, unknown> {
  const out: Record<string, unknown> = {
    run_id: r.run_id,
    status: r.status,
    preset: text(r.preset),
    iteration: r.iteration ?? 0,
    max_iterations: text(r.max_iterations),
    stop_reason: text(r.stop_reason),
    latest_event: text(r.latest_event),
    created_at: text(r.created_at),
    updated_at: text(r.updated_at),
    isolation_mode: text(r.isolation_mode),
  };
  for (const key of ["worktree_name", "worktree_path"] as const)
    if (text(r[key]) !== "") out[key] = text(r[key]);
  return out;
}

/** A field of a registry line as text: other writers may leave it out or give another type. */
export function text(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The check on this machine: its processes, its host name. */
export const processCheckHere = (): ProcessCheck => processCheck(isProcessAlive, hostname());
