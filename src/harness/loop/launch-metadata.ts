// Launching a run: refuse a run id already in the journal, and build the launch metadata
// that `loop.start` and the registry carry (docs/formats.md).
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { hostname } from "node:os";
import type { FieldValue } from "../../journal/codec.js";
import { UserError } from "../../util/errors.js";
import { type LaunchRecord, presetDigest, writeLaunchRecord } from "../control/launch-record.js";
import { makePrivateRunDir, privateRunPaths } from "../control/private-run.js";
import { controlPaths, publishCapabilities } from "../control/requests.js";
import type { Preset } from "../preset/preset.js";
import type { ProfileChoice } from "../preset/profiles.js";
import type { RunPaths } from "../run-paths.js";
import { reviewEvery } from "./metareview.js";
import type { RegistryRecord } from "./registry.js";

export type Trigger = "cli" | "cron" | "chain" | "branch";

export interface LaunchMetadata {
  runId: string;
  objective: string;
  preset: Preset;
  trigger: Trigger;
  createdAt: string;
  parentRunId: string;
  maxIterations: number;
  paths: RunPaths;
  profiles?: ProfileChoice;
  /** Set once the run's worktree exists (worktree isolation). */
  worktree?: { name: string; path: string };
}

/** True when the journal holds any record of `runId` (compact or spaced style). */
export function journalHasRun(journalFile: string, runId: string): boolean {
  let fd: number;
  try {
    fd = openSync(journalFile, "r");
  } catch {
    return false;
  }
  // One pass for the quoted id; each hit is then checked for a `"run":` key before it.
  const needle = Buffer.from(JSON.stringify(runId));
  const keys = [Buffer.from('"run": '), Buffer.from('"run":')];
  const keep = needle.length + keys[0]!.length;
  try {
    // Reads of 64 KiB to 4 MiB, by the file's size: a new run's start reads a short journal,
    // and searching (or allocating) a whole 4 MiB buffer for it would slow the start.
    const chunk = Math.min(4 << 20, Math.max(64 << 10, fstatSync(fd).size));
    const buf = Buffer.allocUnsafe(keep + chunk);
    let position = 0;
    let carried = 0;
    for (;;) {
      const n = readSync(fd, buf, carried, chunk, position);
      if (n <= 0) return false;
      const end = carried + n;
      // Only the bytes read: the rest of the buffer is stale.
      const view = buf.subarray(0, end);
      for (let at = view.indexOf(needle); at !== -1; at = view.indexOf(needle, at + 1)) {
        if (keys.some((k) => at >= k.length && view.subarray(at - k.length, at).equals(k)))
          return true;
      }
      // The tail is searched again with the next read, so a record split across reads is seen.
      carried = Math.min(keep, end);
      buf.copyWithin(0, end - carried, end);
      position += n;
    }
  } finally {
    closeSync(fd);
  }
}

export function assertNewRunId(journalFile: string, runId: string): void {
  if (journalHasRun(journalFile, runId)) {
    throw new UserError(
      `run id ${JSON.stringify(runId)} is already in ${journalFile}; choose another --run-id or leave it out`,
    );
  }
}

export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export function loopStartFields(m: LaunchMetadata): Record<string, FieldValue> {
  const { config } = m.preset;
  return {
    run_id: m.runId,
    objective: m.objective,
    preset: m.preset.name,
    trigger: m.trigger,
    created_at: m.createdAt,
    project_dir: m.preset.dir,
    work_dir: m.paths.workDir,
    backend: config.backend.command,
    backend_args: JSON.stringify(config.backend.args),
    parent_run_id: m.parentRunId,
    isolation_mode: config.core.isolation_mode,
    max_iterations: String(m.maxIterations),
    completion_event: config.event_loop.completion_event,
    completion_promise: config.event_loop.completion_promise,
    ...(config.review?.enabled && {
      review_every: String(
        reviewEvery(config.review.every_iterations, m.preset.topology.roles.length),
      ),
    }),
  };
}

export function registryRecord(m: LaunchMetadata, update: Partial<RegistryRecord>): RegistryRecord {
  const { config } = m.preset;
  return {
    run_id: m.runId,
    status: "running",
    preset: m.preset.name,
    objective: m.objective,
    trigger: m.trigger,
    project_dir: m.preset.dir,
    work_dir: m.paths.workDir,
    state_dir: m.paths.stateDir,
    journal_file: m.paths.journalFile,
    parent_run_id: m.parentRunId,
    backend: config.backend.command,
    backend_args: config.backend.args,
    created_at: m.createdAt,
    updated_at: m.createdAt,
    iteration: 0,
    max_iterations: String(m.maxIterations),
    stop_reason: "",
    latest_event: "loop.start",
    isolation_mode: config.core.isolation_mode,
    worktree_name: m.worktree?.name ?? "",
    worktree_path: m.worktree?.path ?? "",
    pid: process.pid,
    // Our extension: a pid means something only on the host (pid namespace) that wrote it.
    host: hostname(),
    ...update,
  };
}

/**
 * Opens the run's private folder: its capabilities (there and, in the public layout, in the
 * run's own `control/`) and its launch record. Returns the folder's paths.
 */
export function recordLaunch(
  m: LaunchMetadata,
  agent: string,
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void,
) {
  const privateRun = privateRunPaths(m.runId, m.paths.journalFile, env);
  publishCapabilities(controlPaths(m.paths.stateDir), m.runId, agent);
  try {
    makePrivateRunDir(privateRun);
    publishCapabilities(privateRun.control, m.runId, agent);
    writeLaunchRecord(privateRun, launchRecord(m, env));
  } catch (err) {
    // The run still runs; nobody can answer, guide or resume it, and it says so.
    warn(
      `warning: the run's private folder ${privateRun.dir} cannot be written (${(err as Error).message}): answers, guidance and resume cannot reach this run; give it a writable HOME or AUTOLOOP_OPERATOR_DIR`,
    );
  }
  return privateRun;
}

/** What the run's launch record keeps (control/launch-record.ts): what `resume` runs again. */
function launchRecord(
  m: LaunchMetadata,
  env: NodeJS.ProcessEnv,
): Omit<LaunchRecord, "v" | "pid" | "host"> {
  return {
    runId: m.runId,
    preset: m.preset.name,
    presetDir: m.preset.dir,
    presetDigest: presetDigest(m.preset),
    workDir: m.paths.workDir,
    journalFile: m.paths.journalFile,
    objective: m.objective,
    trigger: m.trigger,
    parentRunId: m.parentRunId,
    maxIterations: m.maxIterations,
    createdAt: m.createdAt,
    envNames: Object.keys(env).filter((name) => env[name] !== undefined),
    profiles: m.profiles?.given ?? [],
    noDefaultProfiles: m.profiles?.noDefaults ?? false,
  };
}
