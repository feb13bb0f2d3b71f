// The run as the loop's stages see it: what is fixed at its start (`Run`) and the little that
// changes from one iteration to the next (`RunState`), with the checks every stage shares.
import type { FieldValue } from "../../journal/codec.js";
import type { OutcomeClass } from "../../journal/stop-reasons.js";
import type { AgentReaper } from "../agents/reaper.js";
import type { AgentLaunch } from "../agents/run-as.js";
import type { ControlInbox } from "../control/inbox.js";
import type { PrivateRunPaths } from "../control/private-run.js";
import type { ControlRequest } from "../control/requests.js";
import type { Preset } from "../preset/preset.js";
import type { ProfileChoice } from "../preset/profiles.js";
import type { RunPaths } from "../run-paths.js";
import type { RunView } from "../run-view.js";
import { blockingTasks } from "../tasks/materialize.js";
import type { TaskStore } from "../tasks/store.js";
import type { WorktreeMeta } from "../worktree/worktree.js";
import type { agentCommand } from "./agent-call.js";
import { addUsage, budgetStop, type RunSpend } from "./budget.js";
import type { StallState, Terminal } from "./judge.js";
import type { LaunchMetadata } from "./launch-metadata.js";
import type { Cadence } from "./metareview.js";
import type { IterationSummary } from "./prompt.js";
import type { RunJournal } from "./run-journal.js";
import type { TurnControl } from "./turn-control.js";

export interface RunOptions {
  preset: Preset;
  objective: string;
  runId: string;
  trigger: LaunchMetadata["trigger"];
  parentRunId: string;
  /** No earlier run has this id (generated, or searched for already): the journal is not read. */
  runIdKnownNew?: boolean;
  maxIterations?: number;
  workDir: string;
  env: NodeJS.ProcessEnv;
  /** Env files' variables (keys): kept out of journal and log; AUTOLOOP_SECRET_ENV names them. */
  secretEnv?: Readonly<Record<string, string>>;
  /** `autoloop resume`: go on with an ended run from this iteration (no `loop.start`). */
  resume?: {
    fromIteration: number;
    previousStopReason: string;
    addIterations: number;
    createdAt: string;
  };
  /** The profiles the operator chose (`--profile`, `--no-default-profiles`), for `resume`. */
  profiles?: ProfileChoice;
  /** A wave's branch: the agent works here (the parent's checkout), not in `workDir`. */
  agentDir?: string;
  /** A wave's branch: the event its first iteration routes from, journaled after `loop.start`. */
  seedEvent?: string;
  /** Aborted on SIGTERM/SIGINT: the agent's group is terminated and `loop.stop` journaled. */
  signal: AbortSignal;
  progress?: (line: string) => void;
}

export interface RunResult {
  runId: string;
  outcome: OutcomeClass;
  /** `completion_event` / `completion_promise`, or the `loop.stop` reason. */
  reason: string;
  iterations: number;
  journalFile: string;
  /** What this process's agent calls spent (a wave adds its branches' to its own). */
  spend: RunSpend;
}

/** What changes as the run goes: the only state carried from one iteration to the next. */
export interface RunState {
  /** The last iteration that finished (a resumed run starts at its earlier count). */
  completed: number;
  /** What the agent calls (iterations and metareviews) spent so far. */
  spend: RunSpend;
  /** Metareviews run by this process: their agent calls count in the spend like iterations'. */
  reviews: number;
  /** What the completion gate says in the next prompt ("" when nothing). */
  completionNote: string;
  /** A metareview's REDIRECT: the objective from then on (as in the public autoloop). */
  redirected: string | undefined;
  stall: StallState;
  /** One line per finished iteration, for the prompt's scratchpad. */
  history: IterationSummary[];
}

/** A run: what its start fixed, and its state. */
export interface Run {
  readonly opts: RunOptions;
  readonly preset: Preset;
  readonly ev: Preset["config"]["event_loop"];
  readonly runId: string;
  readonly maxIterations: number;
  readonly paths: RunPaths;
  readonly meta: LaunchMetadata;
  /** Where the agent works: the work dir, or the run's worktree. */
  readonly agentDir: string;
  readonly worktree: WorktreeMeta | undefined;
  readonly view: RunView;
  readonly journal: RunJournal;
  readonly tasks: TaskStore;
  readonly agent: ReturnType<typeof agentCommand>;
  readonly reaper: AgentReaper;
  /** The agent call under way, which `control interrupt` stops. */
  readonly turns: TurnControl;
  readonly inbox: ControlInbox;
  readonly privateRun: PrivateRunPaths;
  readonly cadence: Cadence;
  readonly scheduleHistory: string;
  /** performance.now() at the start: `max_runtime` counts from here. */
  readonly started: number;
  readonly progress: (line: string) => void;
  /** How the agent is started (`backend.run_as`), and the environment it starts from. */
  readonly launch: AgentLaunch;
  readonly agentEnv: NodeJS.ProcessEnv;
  readonly state: RunState;
}

/** The base environment of every agent call: the run's, with its secrets' names. */
export function agentBaseEnv(run: Run): NodeJS.ProcessEnv {
  return { ...run.agentEnv, AUTOLOOP_SECRET_ENV: Object.keys(run.opts.secretEnv ?? {}).join(",") };
}

/** The ids of the tasks that hold completion back (asked only when completion is claimed). */
export function openTaskIds(run: Run): string[] {
  return blockingTasks(run.tasks.view()).map((t) => t.id);
}

/** Adds one agent call's usage to the spend; says so once when its cost is unknown. */
export function countUsage(
  run: Run,
  iteration: number,
  usage: Record<string, FieldValue> | undefined,
  what: string,
): void {
  const { state, ev } = run;
  const unpricedBefore = state.spend.unpriced;
  state.spend = addUsage(state.spend, usage);
  if (ev.max_cost_usd > 0 && unpricedBefore === 0 && state.spend.unpriced > 0) {
    const detail = `${what}'s cost is unknown (${usage === undefined ? "the agent reported no usage" : `no price for model ${usage.model}`}); max_cost_usd counts only the agent calls whose cost is known`;
    run.journal.system("budget.cost_unknown", iteration, { max_cost_usd: ev.max_cost_usd, detail });
    run.progress(`warning: ${detail}`);
  }
}

/** A spent budget's stop, if it is spent. */
export function overBudget(run: Run): Terminal | undefined {
  const stop = budgetStop(run.state.spend, run.ev, run.state.completed);
  return stop === undefined ? undefined : { complete: false, ...stop };
}

/** `max_runtime` is wall-clock time since the start: iterations and metareviews alike. */
export function runtimeStop(run: Run): Terminal | undefined {
  const elapsedMs = Math.round(performance.now() - run.started);
  const limit = run.ev.max_runtime;
  if (limit === undefined || elapsedMs < limit) return undefined;
  return {
    complete: false,
    reason: "max_runtime",
    fields: {
      completed_iterations: String(run.state.completed),
      elapsed_ms: String(elapsedMs),
      max_runtime_ms: String(limit),
    },
  };
}

/** The stop of a run whose signal was aborted (SIGTERM, SIGINT). */
export function interruptedStop(run: Run): Terminal {
  return {
    complete: false,
    reason: "interrupted",
    fields: { completed_iterations: String(run.state.completed) },
  };
}

/** An operator stopped the agent call under way (`control interrupt`, or guidance that interrupts). */
export function journalInterrupt(run: Run, iteration: number, by: ControlRequest): void {
  run.journal.system("operator.interrupt", iteration, {
    request_id: by.id,
    reason: by.reason,
    ...(by.by !== undefined && { by: by.by }),
  });
}
