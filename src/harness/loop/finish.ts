// The end of a run: the event tool removed, outputs published, the worktree ended, the
// terminal record (`loop.complete` or `loop.stop`) with what this process spent, the same in
// the run's private folder (`end.json`), the registry.
import { journalTimestamp } from "../../journal/codec.js";
import { type OutcomeClass, stopReasonClass } from "../../journal/stop-reasons.js";
import { writeEndRecord } from "../control/end-record.js";
import { endRunWorktree, worktreeNote } from "../worktree/run.js";
import { spendFields, spentFigures } from "./budget.js";
import { removeEventTool } from "./event-tool.js";
import type { Terminal } from "./judge.js";
import { registryRecord } from "./launch-metadata.js";
import { publishOutputs } from "./outputs.js";
import { appendRegistry, registryStatus } from "./registry.js";
import type { Run, RunResult } from "./run-state.js";
import { listenForControl } from "./start.js";

export function finish(run: Run, t: Terminal): RunResult {
  const { paths, preset, runId, worktree, journal, state } = run;
  const { completed } = state;
  listenForControl(undefined);
  run.reaper.close();
  removeEventTool(paths);
  // The public order: the claim accepted (accept-step.ts), then what a completion releases,
  // then its record.
  const publish = preset.config.outputs.publish;
  if (t.complete && publish.length > 0)
    journal.system(
      "outputs.published",
      completed,
      publishOutputs(publish, paths.stateDir, run.agentDir),
    );
  if (worktree) {
    const finished = endRunWorktree(paths, worktree, preset.config, t.complete);
    journal.system("worktree.finish", undefined, finished);
    run.progress(worktreeNote(finished, runId));
  }
  // What this process spent: a resumed run's earlier part said it in its own terminal record.
  const resume = run.opts.resume;
  const calls = completed - (resume ? resume.fromIteration - 1 : 0) + state.reviews;
  const spent = spendFields(state.spend, calls);
  const at = recordIteration(t, completed);
  if (t.complete) journal.system("loop.complete", at, { reason: t.reason, ...spent });
  // The public order: the reason, its own fields, then ours (what the run spent). The
  // reason's figures win where both name one (`cost_budget`'s `cost_usd`).
  else journal.system("loop.stop", at, { reason: t.reason, ...t.fields, ...spent, ...t.fields });
  // The same, where a schedule's budget reads it: the journal is the run's to rewrite.
  const end = { runId, reason: t.reason, complete: t.complete, iterations: completed };
  writeEndRecord(run.privateRun, end, spentFigures(state.spend, calls), run.progress);
  appendRegistry(
    paths.registryFile,
    registryRecord(run.meta, {
      status: registryStatus(t),
      stop_reason: t.reason,
      iteration: completed,
      updated_at: journalTimestamp(),
      latest_event: t.complete ? "loop.complete" : "loop.stop",
    }),
  );
  journal.close();
  const outcome: OutcomeClass = t.complete ? "completed" : stopReasonClass(t.reason);
  run.progress(
    `run ${runId} ${t.complete ? "completed" : `stopped: ${t.reason}`} after ${completed} iterations`,
  );
  return {
    runId,
    outcome,
    reason: t.reason,
    iterations: completed,
    journalFile: paths.journalFile,
    spend: state.spend,
  };
}

/**
 * The terminal record's `iteration`, as the public autoloop writes it: the one the stop names
 * (a failed turn, a reviewed one), none for a stop counted in `completed_iterations` (between
 * iterations), else the last completed one.
 */
function recordIteration(t: Terminal, completed: number): number | undefined {
  if (t.at !== undefined) return t.at;
  if (!t.complete && typeof t.fields.iteration === "string" && t.fields.iteration !== "")
    return Number(t.fields.iteration);
  if (!t.complete && "completed_iterations" in t.fields) return undefined;
  return completed || undefined;
}
