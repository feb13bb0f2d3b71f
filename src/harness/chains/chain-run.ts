// Runs a chain: each step a run of its own (trigger `chain`, parent_run_id the chain's run id),
// handed the previous step's result; `chain.*` records in the project's journal tell the story.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { JournalWriter } from "../../journal/append.js";
import { type FieldValue, journalTimestamp } from "../../journal/codec.js";
import type { OutcomeClass } from "../../journal/stop-reasons.js";
import { UserError } from "../../util/errors.js";
import { assertNewRunId, fileSize } from "../loop/launch-metadata.js";
import { type RunOptions, type RunResult, runLoop } from "../loop/run-loop.js";
import { runLayers } from "../preset/layers.js";
import { loadPreset, type Preset, resolvePresetDir } from "../preset/preset.js";
import { applyProfiles } from "../preset/profiles.js";
import { isValidRunId } from "../run-id.js";
import { type ChainBudget, type ChainStep, stepOverrides } from "./chains-file.js";
import { lastOutputOf } from "./step-output.js";

export interface ChainOptions {
  projectDir: string;
  /** The chain's name (from chains.toml), or "inline" for `run --chain a,b`. */
  name: string;
  steps: ChainStep[];
  budget: ChainBudget;
  objective: string;
  chainRunId: string;
  trigger: "cli" | "cron" | "chain" | "branch";
  /** The chain's own parent (a chain started by another run), or "". */
  parentRunId: string;
  env: NodeJS.ProcessEnv;
  /** Env files' variables, kept out of every step's journal (see RunOptions.secretEnv). */
  secretEnv?: Readonly<Record<string, string>>;
  signal: AbortSignal;
  /** Overrides for every step (`--set` of the command line). */
  sets?: readonly string[];
  progress?: (line: string) => void;
  /** How a step's run is run: the loop, or (a spawned chain's) the loop and its own spawns. */
  runStepLoop?: (o: RunOptions) => Promise<RunResult>;
  /** What of a shared budget is spent (a spawned chain's tree), asked before every step. */
  budgetSpent?: () => string | undefined;
}

export interface ChainStepResult {
  step: number;
  preset: string;
  runId: string;
  outcome: OutcomeClass;
  reason: string;
  iterations: number;
}

export interface ChainResult {
  chainRunId: string;
  name: string;
  /** completed: every step passed; otherwise the class of the step that ended it. */
  outcome: OutcomeClass;
  reason: string;
  steps: ChainStepResult[];
  journalFile: string;
}

/** A step passes on to the next when it completed, or used up its iterations (as the reference). */
const passes = (r: ChainStepResult) => r.outcome === "completed" || r.reason === "max_iterations";

/** What every step of a running chain shares. */
interface ChainRun {
  opts: ChainOptions;
  presets: Preset[];
  journalFile: string;
  chainDir: string;
  record: (topic: string, fields: Record<string, FieldValue>) => void;
}

/** How a chain stands: the steps run so far, and how it ends. */
interface ChainState {
  results: ChainStepResult[];
  /** The last step, when it used up its iterations without completing. */
  gaveUp?: ChainStepResult;
  end: { outcome: OutcomeClass; reason: string };
}

export async function runChain(opts: ChainOptions): Promise<ChainResult> {
  const { chainRunId } = opts;
  const { presets, journalFile } = checkedChain(opts);
  const journal = new JournalWriter(journalFile);
  const chain: ChainRun = {
    opts,
    presets,
    journalFile,
    chainDir: join(dirname(journalFile), "chains", chainRunId),
    record: (topic, fields) =>
      journal.append({
        shape: "system",
        run: chainRunId,
        topic,
        ts: journalTimestamp(),
        v: 1,
        fields: { chain_run: chainRunId, ...fields },
      }),
  };
  const started = Date.now();
  recordStart(chain);
  const state: ChainState = {
    results: [],
    end: { outcome: "completed", reason: "all_steps_passed" },
  };
  try {
    await runSteps(chain, started, state);
  } catch (err) {
    // Whatever broke the chain, it did not complete.
    state.end = { outcome: "failed", reason: "chain_error" };
    throw err;
  } finally {
    recordComplete(chain, state);
    journal.close();
  }
  return { chainRunId, name: opts.name, ...state.end, steps: state.results, journalFile };
}

// The public autoloop's fields come first, in its order (chain/run.ts: name, steps, step_count;
// step, preset, preset_dir, work_dir; step, preset, stop_reason; name, steps_completed,
// outcome), then ours, so its readers understand these records too.

/** `chain.start`: the chain's steps, objective and who started it. */
function recordStart({ opts, record }: ChainRun): void {
  record("chain.start", {
    name: opts.name,
    steps: opts.steps.map((s) => s.preset).join(","),
    step_count: String(opts.steps.length),
    objective: opts.objective,
    trigger: opts.trigger,
    parent_run_id: opts.parentRunId,
  });
}

/** Runs the steps in order until one does not pass, or the signal or the runtime budget stops it. */
async function runSteps(chain: ChainRun, started: number, state: ChainState): Promise<void> {
  const { opts, presets } = chain;
  const { steps, budget } = opts;
  let handoff = "";
  for (const [i, step] of steps.entries()) {
    const n = i + 1;
    if (opts.signal.aborted) {
      state.end = { outcome: "interrupted", reason: "interrupted" };
      return;
    }
    if (budget.max_runtime_ms !== undefined && Date.now() - started >= budget.max_runtime_ms) {
      state.end = { outcome: "stopped", reason: "chain_max_runtime" };
      return;
    }
    // However many steps a spawn named, none starts on a spent tree: its runs could not be capped.
    const spent = opts.budgetSpent?.();
    if (spent !== undefined) {
      opts.progress?.(`chain ${opts.name}: step ${n} not started: ${spent}`);
      state.end = { outcome: "stopped", reason: "budget_spent" };
      return;
    }
    // The chain's runtime budget bounds each step too, not only the gaps between them.
    if (budget.max_runtime_ms !== undefined) {
      const left = budget.max_runtime_ms - (Date.now() - started);
      const own = presets[i]!.config.event_loop;
      own.max_runtime = Math.min(own.max_runtime ?? left, left);
    }
    const ran = await runStep(chain, n, step, handoff, state.results);
    const result = ran.result;
    handoff = ran.handoff;
    if (!passes(result)) {
      state.end = { outcome: result.outcome, reason: `step_${result.outcome}` };
      return;
    }
    // The last step has no next one to pass to: used up without completing, the chain did
    // not complete either.
    if (n === steps.length && result.outcome !== "completed") {
      state.end = { outcome: "stopped", reason: "step_stopped" };
      state.gaveUp = result;
    }
  }
}

/**
 * `chain.complete`: how the chain ended, and the step that ended it. The public fields first,
 * `outcome` in its words (`all_steps_complete`, `step_failed`; ours where it has none); our
 * `status` is the outcome class our readers take.
 */
function recordComplete({ opts, record }: ChainRun, { results, gaveUp, end }: ChainState): void {
  const failed = results.find((r) => !passes(r)) ?? gaveUp;
  const outcome =
    end.outcome === "completed"
      ? "all_steps_complete"
      : end.reason.startsWith("step_")
        ? "step_failed"
        : end.reason;
  record("chain.complete", {
    name: opts.name,
    steps_completed: String(results.filter(passes).length),
    outcome,
    status: end.outcome,
    reason: end.reason,
    steps_run: String(results.length),
    ...(failed && {
      failed_step: String(failed.step),
      failed_run_id: failed.runId,
      failed_reason: failed.reason,
    }),
  });
}

/** The chain's presets, every one found and valid before the first step runs, and its journal. */
function checkedChain(opts: ChainOptions): { presets: Preset[]; journalFile: string } {
  const { projectDir, chainRunId, steps, budget } = opts;
  if (steps.length > budget.max_steps)
    throw new UserError(
      `chain ${opts.name} has ${steps.length} steps; the budget allows ${budget.max_steps} ([budget] max_steps in chains.toml)`,
    );
  const lastStepId = `${chainRunId}-step-${steps.length}`;
  if (!isValidRunId(lastStepId))
    throw new UserError(
      `chain run id ${JSON.stringify(chainRunId)} is too long: its steps' run ids (${lastStepId}) must stay within 128 characters`,
    );
  const presets = steps.map((s) => stepPreset(opts, s));
  for (const p of presets) for (const w of p.warnings) opts.progress?.(`preset ${p.name}: ${w}`);
  const journalFile = resolve(projectDir, presets[0]!.config.core.journal_file);
  const other = presets.find(
    (p) => resolve(projectDir, p.config.core.journal_file) !== journalFile,
  );
  if (other !== undefined)
    throw new UserError(
      `chain ${opts.name}: preset ${other.name} journals to ${other.config.core.journal_file}, the first step to ${presets[0]!.config.core.journal_file}; a chain's steps share one journal`,
    );
  for (const id of [chainRunId, ...steps.map((_, i) => `${chainRunId}-step-${i + 1}`)])
    assertNewRunId(journalFile, id);
  return { presets, journalFile };
}

function stepPreset(opts: ChainOptions, s: ChainStep): Preset {
  // The scheduler's presets_dir first (AUTOLOOP_PRESETS_DIR), as its validation looked.
  const dirs = opts.env.AUTOLOOP_PRESETS_DIR ? [opts.env.AUTOLOOP_PRESETS_DIR] : [];
  const dir = s.dir ?? resolvePresetDir(s.preset, opts.projectDir, dirs);
  // The user's config and override of the preset, as a run of it gets them (no repo override:
  // nobody watches a chain's step start; no user layer in a scheduled chain).
  const layers = runLayers(dir, opts.projectDir, "chain", opts.env, opts.trigger === "cron");
  for (const note of layers.notes) opts.progress?.(`preset ${s.preset}: ${note}`);
  const preset = loadPreset(dir, [...layers.sets, ...(opts.sets ?? []), ...stepOverrides(s)]);
  // The preset's default profiles, as a run of it gets them.
  preset.warnings.push(
    ...applyProfiles(
      preset,
      preset.config.profiles.default,
      opts.projectDir,
      `chain ${opts.name}`,
      "chain",
    ),
  );
  // A step's `model` adds to the preset's args, as `--model` (the CLIs' flag).
  if (s.backend?.model !== undefined)
    preset.config.backend.args = [...preset.config.backend.args, "--model", s.backend.model];
  return preset;
}

/** Step `n` run as a run of its own; its result (added to `results`), and its handoff to the next. */
async function runStep(
  chain: ChainRun,
  n: number,
  step: ChainStep,
  handoff: string,
  results: ChainStepResult[],
): Promise<{ result: ChainStepResult; handoff: string }> {
  const { opts, journalFile, record } = chain;
  const { chainRunId, projectDir } = opts;
  const preset = chain.presets[n - 1]!;
  const stepDir = join(chain.chainDir, `step-${n}`);
  mkdirSync(stepDir, { recursive: true });
  const objective = stepObjective(opts, n, step, handoff);
  writeFileSync(join(stepDir, "handoff.md"), `${objective}\n`);
  const runId = `${chainRunId}-step-${n}`;
  record("chain.step.start", {
    step: String(n),
    preset: step.preset,
    preset_dir: preset.dir,
    work_dir: projectDir,
    run_id: runId,
  });
  opts.progress?.(
    `chain ${opts.name}: step ${n}/${opts.steps.length} (${step.preset}) as ${runId}`,
  );
  const offset = fileSize(journalFile);
  const r = await (opts.runStepLoop ?? runLoop)({
    preset,
    runId,
    workDir: projectDir,
    trigger: "chain",
    parentRunId: chainRunId,
    runIdKnownNew: true, // every step's id was searched for before the first step
    objective,
    ...(step.maxIterations !== undefined && { maxIterations: step.maxIterations }),
    env: opts.env,
    ...(opts.secretEnv && { secretEnv: opts.secretEnv }),
    signal: opts.signal,
    ...(opts.progress && { progress: opts.progress }),
  });
  const result: ChainStepResult = {
    step: n,
    preset: step.preset,
    runId,
    outcome: r.outcome,
    reason: r.reason,
    iterations: r.iterations,
  };
  results.push(result);
  const next = resultText(result, lastOutputOf(journalFile, runId, offset));
  writeFileSync(join(stepDir, "result.md"), next);
  record("chain.step.finish", {
    step: String(n),
    preset: step.preset,
    stop_reason: r.reason,
    run_id: runId,
    outcome: r.outcome,
    reason: r.reason,
    iterations: String(r.iterations),
  });
  return { result, handoff: next };
}

function stepObjective(opts: ChainOptions, n: number, step: ChainStep, handoff: string): string {
  const head = `${opts.objective}\n\n(Chain ${opts.name}, step ${n} of ${opts.steps.length}: ${step.preset}.)`;
  return handoff === "" ? head : `${head}\n\n## Handoff from the previous step\n\n${handoff}`;
}

function resultText(r: ChainStepResult, output: string): string {
  const lines = [
    `Step ${r.step} (${r.preset}, run ${r.runId}): ${r.outcome} (${r.reason}) after ${r.iterations} iterations.`,
  ];
  if (output !== "") lines.push("", "Its last output:", "", output.trim());
  return `${lines.join("\n")}\n`;
}
