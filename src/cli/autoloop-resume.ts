// `autoloop resume <run-id> [--add-iterations N]`: go on with a run that stopped (its
// iterations ran out, its agent failed, it was interrupted), as the public autoloop does:
// same run id, journal and tasks, `loop.resume` instead of `loop.start`.
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { pendingSpawns } from "../harness/chains/spawn-pending.js";
import { type LaunchRecord, presetDigest } from "../harness/control/launch-record.js";
import { findRun, type RunRef } from "../harness/control/operator-requests.js";
import { OPERATOR_DIR_ENV, privateRunPaths } from "../harness/control/private-run.js";
import { clearSuspendState, readSuspendState } from "../harness/control/suspend-state.js";
import { isHarnessLoop } from "../harness/control/wake.js";
import { NO_SPEND } from "../harness/loop/budget.js";
import type { Preset } from "../harness/preset/preset.js";
import { readJournal } from "../journal/reader.js";
import { readRegistry } from "../journal/registry-view.js";
import { UserError } from "../util/errors.js";
import { flag, intOption, list, parse, str } from "./common.js";

const HELP = `Usage: autoloop resume <run-id> [--add-iterations N] [--work-dir DIR]
                       [--env-file FILE]... [--accept-preset-changes]

Goes on with a run that stopped without completing: from the iteration it stopped at
(the same one again when its agent failed or timed out, else the next; for a run a hook
suspended, where its suspend state says, which resuming clears), with N more
iterations (default: the run's own max_iterations). The run keeps its id, journal,
tasks and memory; its journal gets loop.resume. The run id may be a unique prefix.

What runs again comes from the run's launch record, which its harness kept in the
run's private folder (outside the project): the same preset folder, work dir and
objective, never a path from the registry beside the journal (the run's agent can
write that), and the profiles it started with (--profile, --no-default-profiles). The resumed run gets the variables the run had at launch (by name, with
their values from here), not all of yours; --env-file files are read again as for
\`autoloop run\`. A preset whose settings changed since the run started (its
command, arguments, environment, roles) is refused unless --accept-preset-changes.

Once the resumed run completes, its chain.spawn requests not acted on yet start their
chains. A completed run is refused, unless its harness ended before acting on its
requests: then only those are acted on (no iteration runs again).

Exit codes: 0 once the resumed run ends (whatever its outcome, as the public autoloop),
1 usage, 2 the run cannot be resumed (unknown, completed, still running, no journal,
no launch record, its preset changed).
`;

export async function resumeCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    {
      "add-iterations": { type: "string" },
      "work-dir": { type: "string" },
      "env-file": { type: "string", multiple: true },
      "accept-preset-changes": { type: "boolean" },
    },
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
  const launch = launchOf(ref);
  const record = readRegistry(ref.journalFile).get(ref.runId)!;
  const completed = String(record.status) === "completed";
  refuseUnresumable(ref, launch, record, completed);
  const stopReason = typeof record.stop_reason === "string" ? record.stop_reason : "";
  if (completed) return spawnCompleted(ref, launch, stopReason, p);
  const privateRun = privateRunPaths(ref.runId, ref.journalFile);
  const suspended = readSuspendState(privateRun);
  const from = resumeIteration(ref, record, stopReason, suspended);
  const addIterations = add ?? (launch.maxIterations || 3);
  const preset = await samePreset(launch, flag(p, "accept-preset-changes"));
  const { readEnvFiles } = await import("../util/env-file.js");
  const fileEnv = readEnvFiles(list(p, "env-file").map((f) => resolve(f)));
  const { runWithSpawns } = await import("../harness/chains/spawn-run.js");
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  if (suspended !== undefined) clearSuspendState(privateRun);
  // Once it completes, its requests not acted on yet start their chains, as after a run.
  const result = await runWithSpawns(
    {
      preset,
      runId: ref.runId,
      workDir: launch.workDir,
      trigger: "cli",
      objective: launch.objective,
      parentRunId: launch.parentRunId,
      // Kept in the new launch record, so a second resume has them too.
      profiles: { given: launch.profiles ?? [], noDefaults: launch.noDefaultProfiles ?? false },
      resume: {
        fromIteration: from,
        previousStopReason: stopReason,
        addIterations,
        createdAt: launch.createdAt,
      },
      env: { ...launchEnv(launch, process.env), ...fileEnv },
      secretEnv: fileEnv,
      signal: controller.signal,
      progress: (line) => process.stderr.write(`[autoloop] ${line}\n`),
    },
    undefined,
    spawnTrigger(launch),
  );
  process.stdout.write(
    `resumed ${ref.runId} from iteration ${from} (was: ${stopReason || "unknown"}); stop_reason=${result.reason} iterations=${result.iterations} new_max_iterations=${from - 1 + addIterations}\n`,
  );
  return 0;
}

/** Why the run cannot be resumed, thrown (exit 2), if it cannot. */
function refuseUnresumable(
  ref: RunRef,
  launch: LaunchRecord,
  record: Record<string, unknown>,
  completed: boolean,
): void {
  if (completed && pendingSpawns(ref.journalFile, ref.runId).requests.length === 0)
    throw new UserError(`error: run ${ref.runId} already completed; cannot resume`, 2);
  // The recorded pid is the run's only while it is a harness running a loop: once the run
  // ended, its pid may belong to any other program, which must not keep the run stopped.
  if (launch.host === hostname() && isHarnessLoop(launch.pid))
    throw new UserError(`error: run ${ref.runId} is still running (PID ${launch.pid})`, 2);
  if (!existsSync(ref.journalFile))
    throw new UserError(`error: journal not found for run ${ref.runId}`, 2);
  if (record.isolation_mode === "worktree")
    throw new UserError(
      `error: run ${ref.runId} ran in a worktree; resuming one is not supported here yet (start a new run)`,
      2,
    );
}

/**
 * The iteration the run goes on from: where a hook's suspension says (its private suspend
 * state), else the one after the last finished, or the last again when its agent failed.
 */
function resumeIteration(
  ref: RunRef,
  record: Record<string, unknown>,
  stopReason: string,
  suspended: ReturnType<typeof readSuspendState>,
): number {
  if (suspended?.runId === ref.runId) return Math.max(1, suspended.resumeIteration);
  const last = Number(record.iteration ?? 0) || 0;
  const finished = readJournal(ref.journalFile).items.some(
    (r) => r.run === ref.runId && r.topic === "iteration.finish" && r.iteration === String(last),
  );
  const again = stopReason === "backend_failed" || stopReason === "backend_timeout" || !finished;
  return Math.max(1, stopReason === "max_iterations" || !again ? last + 1 : last);
}

/**
 * A run that completed before its harness acted on its `chain.spawn` requests (it was killed
 * in between): no iteration runs again; the pending requests are acted on as they would have
 * been (docs/dynamic-chains.md).
 */
async function spawnCompleted(
  ref: RunRef,
  launch: LaunchRecord,
  stopReason: string,
  p: ReturnType<typeof parse>,
): Promise<number> {
  const preset = await samePreset(launch, flag(p, "accept-preset-changes"));
  const { readEnvFiles } = await import("../util/env-file.js");
  const fileEnv = readEnvFiles(list(p, "env-file").map((f) => resolve(f)));
  const { spawnPending } = await import("../harness/chains/spawn-run.js");
  const controller = new AbortController();
  process.on("SIGTERM", () => controller.abort());
  process.on("SIGINT", () => controller.abort());
  const opts = {
    preset,
    runId: ref.runId,
    workDir: launch.workDir,
    trigger: "cli" as const,
    objective: launch.objective,
    parentRunId: launch.parentRunId,
    maxIterations: launch.maxIterations,
    env: { ...launchEnv(launch, process.env), ...fileEnv },
    secretEnv: fileEnv,
    signal: controller.signal,
    progress: (line: string) => process.stderr.write(`[autoloop] ${line}\n`),
  };
  const done = {
    runId: ref.runId,
    outcome: "completed" as const,
    reason: stopReason,
    iterations: 0,
    journalFile: ref.journalFile,
    spend: NO_SPEND,
  };
  const result = await spawnPending(opts, done, spawnTrigger(launch));
  const chains = (result.spawned ?? []).map((c) => `${c.chainRunId}=${c.outcome}`);
  process.stdout.write(
    `run ${ref.runId} had completed; acted on its pending chain.spawn requests: ${chains.join(" ") || "none started (see chain.spawn.refused)"}\n`,
  );
  return 0;
}

/** A run started by hand spawns runs started by hand; any other (scheduled, a chain's step) scheduled ones. */
function spawnTrigger(launch: LaunchRecord): "cli" | "cron" {
  return launch.trigger === "cli" ? "cli" : "cron";
}

/** The run's launch record: what its harness said it ran, kept where the run cannot write. */
function launchOf(ref: RunRef): LaunchRecord {
  if (ref.launch === undefined)
    throw new UserError(
      `error: run ${ref.runId} has no launch record in ${privateRunPaths(ref.runId, ref.journalFile).dir} (it was started by another harness, account or host, or by an older autoloop); resume takes what to run from there, never from the registry: start a new run instead`,
      2,
    );
  return ref.launch;
}

/** The run's preset as it is now, refused when its settings changed since the run started. */
async function samePreset(launch: LaunchRecord, acceptChanges: boolean): Promise<Preset> {
  const { loadPreset } = await import("../harness/preset/preset.js");
  // The config layers a run of it gets (`autoloop config`), so an unchanged one resumes.
  const { runLayers } = await import("../harness/preset/layers.js");
  const layers = runLayers(launch.presetDir, launch.workDir, launch.trigger);
  const preset = loadPreset(launch.presetDir, layers.sets);
  if (presetDigest(preset) !== launch.presetDigest && !acceptChanges)
    throw new UserError(
      `error: preset ${launch.preset} (${launch.presetDir}) changed since run ${launch.runId} started: its settings now run ${JSON.stringify([preset.config.backend.command, ...preset.config.backend.args].join(" "))}; check the change (the run's agent may have made it), then resume with --accept-preset-changes`,
      2,
    );
  // The profiles the run started with: its launch record's choice (the run cannot write it).
  const { activeProfiles, applyProfiles } = await import("../harness/preset/profiles.js");
  const profiles = activeProfiles(preset, launch.profiles ?? [], launch.noDefaultProfiles ?? false);
  for (const w of applyProfiles(
    preset,
    profiles,
    launch.workDir,
    "autoloop resume",
    launch.trigger,
  ))
    process.stderr.write(`autoloop: preset ${preset.name}: ${w}\n`);
  return preset;
}

/**
 * The variables the run had at launch, by name, with their values from `env`; and those that
 * say where private folders are, so the resumed run keeps the one its record was found in.
 */
export function launchEnv(launch: LaunchRecord, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = {};
  for (const name of [...launch.envNames, "HOME", "XDG_STATE_HOME", OPERATOR_DIR_ENV])
    if (env[name] !== undefined) kept[name] = env[name];
  return kept;
}
