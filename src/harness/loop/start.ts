// The start of a run: its files, worktree and journal view, `loop.start` (or `loop.resume`),
// the event tool, the private folder the operator reaches it through, and whether its agent
// is logged in at all.
import { mkdirSync } from "node:fs";
import { journalTimestamp } from "../../journal/codec.js";
import { loginRefusal } from "../agents/failure.js";
import { AgentReaper } from "../agents/reaper.js";
import { ControlInbox } from "../control/inbox.js";
import { joinedWaves } from "../control/wave-joins.js";
import { ignoreStateDir, type RunPaths, runPaths } from "../run-paths.js";
import { secretsRedactor } from "../run-secrets.js";
import { RunView } from "../run-view.js";
import { TaskStore } from "../tasks/store.js";
import { startRunWorktree } from "../worktree/run.js";
import type { WorktreeMeta } from "../worktree/worktree.js";
import { agentCommand } from "./agent-call.js";
import { runBoundEnv } from "./agent-env.js";
import { agentSetup, shareWithAgent } from "./agent-files.js";
import { NO_SPEND } from "./budget.js";
import { writeEventTool } from "./event-tool.js";
import type { Terminal } from "./judge.js";
import {
  assertNewRunId,
  fileSize,
  type LaunchMetadata,
  loopStartFields,
  recordLaunch,
  registryRecord,
} from "./launch-metadata.js";
import { cadenceOf, reviewInstructions } from "./metareview.js";
import { readScheduleHistory } from "./prompt.js";
import { appendRegistry } from "./registry.js";
import { RunJournal } from "./run-journal.js";
import type { Run, RunOptions, RunState } from "./run-state.js";
import { TurnControl } from "./turn-control.js";

/** The inbox SIGUSR1 drains: the running loop's (a chain runs its steps one at a time). */
let controlInbox: ControlInbox | undefined;
let usr1Handled = false;

/** Points SIGUSR1 at `inbox` (installed once; it stays, so Node's inspector never opens). */
export function listenForControl(inbox: ControlInbox | undefined): void {
  controlInbox = inbox;
  if (usr1Handled) return;
  usr1Handled = true;
  process.on("SIGUSR1", () => controlInbox?.drain());
}

/** Opens the run: everything `Run` holds, journaled as started (or resumed). */
export function openRun(opts: RunOptions): Run {
  const { preset, runId, resume } = opts;
  const ev = preset.config.event_loop;
  const maxIterations = resume
    ? resume.fromIteration - 1 + resume.addIterations
    : (opts.maxIterations ?? ev.max_iterations);
  const paths = runPaths(opts.workDir, runId, preset.config, opts.env);
  const { launch, user, agentBase } = agentSetup(preset, paths, opts.env);
  // A review prompt file outside the preset fails the run before it starts, not midway.
  if (preset.config.review?.enabled) reviewInstructions(preset, preset.config.review);
  const secrets = secretsRedactor(opts.secretEnv);
  const progress = (line: string) => opts.progress?.(secrets.redact(line));
  if (!opts.runIdKnownNew && resume === undefined) assertNewRunId(paths.journalFile, runId);
  mkdirSync(paths.runDir, { recursive: true });
  ignoreStateDir(paths);
  // In worktree isolation the agent works in the run's own tree; its state stays here.
  const isolated = startRunWorktree(paths, runId, preset.config, opts.env);
  const worktree = isolated?.meta;
  const meta = launchMetadata(opts, paths, maxIterations, worktree);
  // A resumed run's routing, guidance and gate history are in its earlier records.
  const offset = resume === undefined ? fileSize(paths.journalFile) : 0;
  const view = new RunView(paths.journalFile, runId, offset, ev.ask_event, preset.topology.gates);
  const journal = new RunJournal(paths.journalFile, runId, secrets);
  const tasks = new TaskStore(paths.tasksFile);
  const agent = agentCommand(preset, paths, runId);
  const reaper = new AgentReaper();
  const started = performance.now();
  const scheduleHistory = readScheduleHistory(opts.env);
  journalStart(opts, journal, meta, worktree);
  if (opts.seedEvent !== undefined)
    journal.operator(opts.seedEvent, undefined, "branch routing seed", "harness");
  writeEventTool(paths.toolPath, runBoundEnv(preset, paths, runId));
  if (user !== undefined) shareWithAgent(paths, user);
  // `control interrupt` and `control guide` reach the run by SIGUSR1 (and at each iteration),
  // through its private folder: the run's own `control/` is the agent's to write.
  const privateRun = recordLaunch(meta, agent.agent.id, opts.env, progress);
  // A resumed run's joined records route as they did before it stopped.
  if (resume !== undefined) for (const waveId of joinedWaves(privateRun)) view.acceptJoin(waveId);
  const turns = new TurnControl();
  const inbox = new ControlInbox(privateRun.control, runId, (request) => turns.interrupt(request));
  listenForControl(inbox);
  appendRegistry(paths.registryFile, registryRecord(meta, {}));
  progress(`run ${runId} started: preset ${preset.name}, up to ${maxIterations} iterations`);
  const agentDir = opts.agentDir ?? isolated?.agentDir ?? paths.workDir;
  const cadence = cadenceOf(preset);
  return {
    opts,
    preset,
    ev,
    runId,
    maxIterations,
    paths,
    meta,
    agentDir,
    worktree,
    view,
    journal,
    tasks,
    agent,
    reaper,
    turns,
    inbox,
    privateRun,
    cadence,
    scheduleHistory,
    started,
    progress,
    launch,
    agentEnv: agentBase,
    state: initialState(opts),
  };
}

function launchMetadata(
  opts: RunOptions,
  paths: RunPaths,
  maxIterations: number,
  worktree: WorktreeMeta | undefined,
): LaunchMetadata {
  return {
    runId: opts.runId,
    objective: opts.objective,
    preset: opts.preset,
    trigger: opts.trigger,
    parentRunId: opts.parentRunId,
    maxIterations,
    paths,
    createdAt: opts.resume?.createdAt ?? journalTimestamp(),
    ...(opts.profiles && { profiles: opts.profiles }),
    ...(worktree && { worktree: { name: worktree.run_id, path: worktree.worktree_path } }),
  };
}

function initialState(opts: RunOptions): RunState {
  return {
    completed: opts.resume === undefined ? 0 : opts.resume.fromIteration - 1,
    spend: NO_SPEND,
    reviews: 0,
    completionNote: "",
    redirected: undefined,
    stall: { signature: "", identical: 0 },
    history: [],
  };
}

/** `loop.start`, or `loop.resume` for a resumed run. */
function journalStart(
  opts: RunOptions,
  journal: RunJournal,
  meta: LaunchMetadata,
  worktree: WorktreeMeta | undefined,
): void {
  const { resume } = opts;
  if (resume !== undefined)
    journal.system("loop.resume", undefined, {
      resumed_from_iteration: String(resume.fromIteration),
      previous_stop_reason: resume.previousStopReason,
      add_iterations: String(resume.addIterations),
      new_max_iterations: String(meta.maxIterations),
    });
  else
    journal.system("loop.start", undefined, {
      ...loopStartFields(meta),
      ...(worktree && { worktree_branch: worktree.branch, worktree_path: worktree.worktree_path }),
    });
}

/** An agent that is not logged in stops the run before its first iteration. */
export async function loginStop(run: Run): Promise<Terminal | undefined> {
  const { agent, command, args } = run.agent;
  const refusal = await loginRefusal({
    agent,
    command,
    args,
    cwd: run.agentDir,
    env: { ...run.agentEnv, ...run.preset.config.backend.env },
    signal: run.opts.signal,
    reaper: run.reaper,
    launch: run.launch,
  });
  if (refusal === undefined) return undefined;
  run.journal.system("backend.login_check", undefined, refusal.fields);
  return { complete: false, reason: refusal.stop.reason, fields: refusal.stop.fields };
}
