// `autoloop resume <run-id> [--add-iterations N]`: go on with a run that stopped (its
// iterations ran out, its agent failed, it was interrupted), as the public autoloop does:
// same run id, journal and tasks, `loop.resume` instead of `loop.start`.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { findRun } from "../harness/control/operator-requests.js";
import { readJournal } from "../journal/reader.js";
import { readRegistry } from "../journal/registry-view.js";
import { UserError } from "../util/errors.js";
import { isProcessAlive } from "../util/process.js";
import { intOption, parse, str } from "./common.js";

const HELP = `Usage: autoloop resume <run-id> [--add-iterations N] [--work-dir DIR]

Goes on with a run that stopped without completing: from the iteration it stopped at
(the same one again when its agent failed or timed out, else the next), with N more
iterations (default: the run's own max_iterations). The run keeps its id, journal,
tasks and memory; its journal gets loop.resume. The run id may be a unique prefix.

Exit codes: 0 once the resumed run ends (whatever its outcome, as the public autoloop),
1 usage, 2 the run cannot be resumed (unknown, completed, still running, no journal).
`;

export async function resumeCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    { "add-iterations": { type: "string" }, "work-dir": { type: "string" } },
    "autoloop resume",
  );
  if (p.values.help === true) {
    process.stdout.write(HELP);
    return 0;
  }
  const partial = p.positionals[0];
  if (partial === undefined) throw new UserError(`error: missing required run-id\n\n${HELP}`, 1);
  const add = intOption(p, "add-iterations", "autoloop resume");
  const workDir = resolve(str(p, "work-dir") ?? process.env.AUTOLOOP_PROJECT_DIR ?? ".");
  const journal = join(workDir, ".autoloop", "journal.jsonl");
  let ref: ReturnType<typeof findRun>;
  try {
    ref = findRun(journal, partial);
  } catch (err) {
    throw new UserError(`error: ${(err as Error).message}`, 2);
  }
  const record = readRegistry(ref.journalFile).get(ref.runId)!;
  const status = String(record.status);
  if (status === "completed")
    throw new UserError(`error: run ${ref.runId} already completed; cannot resume`, 2);
  if (status === "running" && ref.pid !== undefined && isProcessAlive(ref.pid))
    throw new UserError(`error: run ${ref.runId} is still running (PID ${ref.pid})`, 2);
  if (!existsSync(ref.journalFile))
    throw new UserError(`error: journal not found for run ${ref.runId}`, 2);
  if (record.isolation_mode === "worktree")
    throw new UserError(
      `error: run ${ref.runId} ran in a worktree; resuming one is not supported here yet (start a new run)`,
      2,
    );
  const stopReason = typeof record.stop_reason === "string" ? record.stop_reason : "";
  const last = Number(record.iteration ?? 0) || 0;
  const finished = readJournal(ref.journalFile).items.some(
    (r) => r.run === ref.runId && r.topic === "iteration.finish" && r.iteration === String(last),
  );
  const again = stopReason === "backend_failed" || stopReason === "backend_timeout" || !finished;
  const from = Math.max(1, stopReason === "max_iterations" || !again ? last + 1 : last);
  const addIterations = add ?? (Number(record.max_iterations) || 3);
  const presetDir = String(record.project_dir ?? "");
  const { loadPreset } = await import("../harness/preset.js");
  const preset = loadPreset(presetDir);
  const { runLoop } = await import("../harness/loop.js");
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  const result = await runLoop({
    preset,
    runId: ref.runId,
    workDir: String(record.work_dir ?? workDir),
    trigger: "cli",
    objective: String(record.objective ?? ""),
    parentRunId: String(record.parent_run_id ?? ""),
    resume: {
      fromIteration: from,
      previousStopReason: stopReason,
      addIterations,
      createdAt: String(record.created_at ?? ""),
    },
    env: process.env,
    signal: controller.signal,
    progress: (line) => process.stderr.write(`[autoloop] ${line}\n`),
  });
  process.stdout.write(
    `resumed ${ref.runId} from iteration ${from} (was: ${stopReason || "unknown"}); stop_reason=${result.reason} iterations=${result.iterations} new_max_iterations=${from - 1 + addIterations}\n`,
  );
  return 0;
}
