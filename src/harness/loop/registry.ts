// The run registry (`registry.jsonl`): compact JSON, one run record per line, the last
// line per run_id wins. A derived view that can be rebuilt from the journal.
import { appendLineOnce } from "../../journal/append.js";
import { stopReasonClass } from "../../journal/stop-reasons.js";
import type { Terminal } from "./judge.js";

export type RegistryStatus = "running" | "completed" | "failed" | "timed_out" | "stopped";

export interface RegistryRecord {
  run_id: string;
  status: RegistryStatus;
  preset: string;
  objective: string;
  trigger: string;
  project_dir: string;
  work_dir: string;
  state_dir: string;
  journal_file: string;
  parent_run_id: string;
  backend: string;
  backend_args: string[];
  created_at: string;
  updated_at: string;
  /** A number, as the public autoloop writes it (its `stats` and `loops` read it so). */
  iteration: number;
  max_iterations: string;
  stop_reason: string;
  latest_event: string;
  isolation_mode: string;
  /** The run's worktree in worktree isolation (its run id and tree), else "". */
  worktree_name: string;
  worktree_path: string;
  pid: number;
  /** The harness's host name: a monitor elsewhere (another pod) cannot judge the pid. */
  host: string;
}

export function appendRegistry(file: string, record: RegistryRecord): void {
  // Registry lines are a rebuildable projection: no fsync, so the loop stays fast.
  appendLineOnce(file, JSON.stringify(record), { fsync: false });
}

/** The registry status of a run that ended so. */
export function registryStatus(t: Terminal): RegistryStatus {
  if (t.complete) return "completed";
  if (t.reason === "backend_timeout") return "timed_out";
  return stopReasonClass(t.reason) === "failed" ? "failed" : "stopped";
}
