// `autoloop run`: parse options, load the preset, run the loop, exit by outcome class.
import { resolve } from "node:path";
import { exitCodeForClass } from "../journal/stop-reasons.js";
import { UserError } from "../util/errors.js";
import { flag, intOption, list, type Parsed, parse, str } from "./common.js";

const HELP = `Usage: autoloop run <preset-name|preset-dir> [objective...] [options]

Runs a loop: the agent is prompted again and again until it completes the objective
(completion event or promise, with no open tasks) or a stop reason applies.

  autoloop run demo "Write the report"
  autoloop run ./presets/autofix "Make the test suite pass" --max-iterations 20
  autoloop run review "Review this branch" --set backend.command=codex

Options:
  --trigger cli|cron|chain|branch   how the run was launched (default: cli)
  --chain a,b,...                   run these presets in sequence, as an inline chain (no
                                    <preset> then: every word is the objective; see
                                    \`autoloop chain --help\`)
  --run-id ID                       use this run id (refused if already in the journal)
  --parent-run-id ID                the parent run, for chains and branches
  --max-iterations N                override event_loop.max_iterations
  --set key=value                   override a preset config key (repeatable)
  --profile repo:NAME|user:NAME     append the profile's role prompt fragments (repeatable;
                                    after profiles.default): .autoloop/profiles/NAME/<preset>/
                                    <role>.md, or ~/.config/autoloops/profiles/NAME/...
  --no-default-profiles             leave out the preset's profiles.default
  --budget-usd X                    a ceiling on event_loop.max_cost_usd: the lower of the
                                    two holds (what a schedule's budget leaves a run)
  --budget-tokens N                 the same for event_loop.max_tokens
  --work-dir DIR                    where state and the journal live (default: current dir)
  --env-file FILE                   NAME=value lines added to the agent's environment
                                    (repeatable; for credentials only this run should get)
  --worktree                        run the agent in its own git worktree, on branch
                                    autoloop/<run-id> (core.isolation_mode = "worktree")
  --no-worktree                     the project's checkout, whatever the preset says
  --automerge                       merge the run's branch into its base when it completes
  --merge-strategy squash|merge|rebase   how (default: worktree.merge_strategy, squash)
  --keep-worktree                   keep the worktree folder after a merge
  --json                            print the result as JSON on stdout
  --quiet                           no progress lines on stderr

Preset resolution: a path, else ./presets/<name>, else the bundled presets/<name>.
Dynamic chains: when the preset's [chain_spawn] allows it, the chains the agent asked for with
\`chain.spawn\` run once the run completes, within its limits and budget (--json: "spawned");
see docs/dynamic-chains.md. The exit code is the run's own.
Exit codes: 0 completed, 1 failed, 3 stopped, 130 interrupted, 2 usage or config error.
`;

const TRIGGERS = ["cli", "cron", "chain", "branch"] as const;

export async function runCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    {
      trigger: { type: "string" },
      "run-id": { type: "string" },
      "parent-run-id": { type: "string" },
      "max-iterations": { type: "string" },
      set: { type: "string", multiple: true },
      profile: { type: "string", multiple: true },
      "no-default-profiles": { type: "boolean" },
      "budget-usd": { type: "string" },
      "budget-tokens": { type: "string" },
      "work-dir": { type: "string" },
      "env-file": { type: "string", multiple: true },
      chain: { type: "string" },
      "dry-run": { type: "boolean" },
      worktree: { type: "boolean" },
      "no-worktree": { type: "boolean" },
      automerge: { type: "boolean" },
      "merge-strategy": { type: "string" },
      "keep-worktree": { type: "boolean" },
      json: { type: "boolean" },
      quiet: { type: "boolean" },
    },
    "autoloop run",
  );
  if (flag(p, "help")) {
    process.stdout.write(HELP);
    return 0;
  }
  const inline = str(p, "chain");
  if (inline !== undefined) return inlineChain(p, inline);
  const [presetArg, ...objectiveWords] = p.positionals;
  if (presetArg === undefined)
    throw new UserError(`autoloop run: missing <preset-name|preset-dir>\n\n${HELP}`);
  const trigger = triggerOf(p);
  const { runId, given } = await runIdOf(p);
  const workDir = resolve(str(p, "work-dir") ?? process.cwd());
  const { readEnvFiles } = await import("../util/env-file.js");
  const fileEnv = readEnvFiles(list(p, "env-file").map((f) => resolve(f)));
  const preset = await presetFor(p, presetArg, workDir);
  // The loop, then the chains its agent asked for (`chain.spawn`), as its preset allows.
  const { runWithSpawns } = await import("../harness/chains/spawn-run.js");
  const quiet = flag(p, "quiet");
  const result = await runWithSpawns({
    preset,
    runId,
    workDir,
    trigger,
    objective: objectiveWords.join(" "),
    parentRunId: str(p, "parent-run-id") ?? "",
    runIdKnownNew: given === undefined,
    maxIterations: intOption(p, "max-iterations", "autoloop run"),
    profiles: { given: list(p, "profile"), noDefaults: flag(p, "no-default-profiles") },
    env: { ...process.env, ...fileEnv },
    secretEnv: fileEnv,
    signal: stopOnSignals(),
    progress: quiet ? undefined : (line) => process.stderr.write(`[autoloop] ${line}\n`),
  });
  if (flag(p, "json")) process.stdout.write(`${JSON.stringify(result)}\n`);
  return exitCodeForClass(result.outcome);
}

/** `autoloop run --chain a,b "objective"`: an inline chain, its steps' options in chains.toml. */
async function inlineChain(p: Parsed, inline: string): Promise<number> {
  const alone = [
    "max-iterations",
    "budget-usd",
    "budget-tokens",
    "worktree",
    "no-worktree",
    "automerge",
    "merge-strategy",
    "keep-worktree",
  ];
  const clash = alone.find((o) => p.values[o] !== undefined);
  if (clash !== undefined)
    throw new UserError(
      `autoloop run: --${clash} does not apply to --chain; set it per step in chains.toml`,
    );
  const steps = inline
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((preset) => ({ preset }));
  if (steps.length === 0) throw new UserError("autoloop run: --chain needs a,b,... preset names");
  const { runChainCommand } = await import("./autoloop-chain.js");
  return runChainCommand(p, {
    name: "inline",
    steps,
    objective: p.positionals.join(" "),
    projectDir: resolve(str(p, "work-dir") ?? process.cwd()),
  });
}

function triggerOf(p: Parsed): (typeof TRIGGERS)[number] {
  const trigger = str(p, "trigger") ?? "cli";
  if (!(TRIGGERS as readonly string[]).includes(trigger))
    throw new UserError(
      `autoloop run: --trigger must be one of ${TRIGGERS.join(", ")}, found ${JSON.stringify(trigger)}`,
    );
  return trigger as (typeof TRIGGERS)[number];
}

/** The run's id: `--run-id` (checked), else a new one. */
async function runIdOf(p: Parsed): Promise<{ runId: string; given: string | undefined }> {
  const { isValidRunId, newRunId } = await import("../harness/run-id.js");
  const given = str(p, "run-id");
  const runId = given ?? newRunId();
  if (!isValidRunId(runId))
    throw new UserError(
      `autoloop run: --run-id ${JSON.stringify(runId)} is not a valid run id; use letters, digits, . _ - (no "..", at most 128 characters)`,
    );
  return { runId, given };
}

/** The preset with the command line's `--set`s, profiles, worktree options and budget caps applied. */
async function presetFor(p: Parsed, presetArg: string, workDir: string) {
  const { loadPreset, resolvePresetDir } = await import("../harness/preset/preset.js");
  const { userPreset } = await import("../harness/preset/user-presets.js");
  let presetDir: string;
  try {
    presetDir = resolvePresetDir(presetArg, process.cwd());
  } catch (err) {
    // The user's own presets (`autoloop preset promote`) come after the project's and ours.
    const promoted = userPreset(presetArg);
    if (promoted === undefined) throw err;
    presetDir = promoted;
  }
  // The user's config file and the preset's overrides (`autoloop config`), below the --sets.
  const { runLayers } = await import("../harness/preset/layers.js");
  const layers = runLayers(presetDir, workDir, triggerOf(p));
  for (const note of layers.notes) process.stderr.write(`autoloop: ${note}\n`);
  const preset = loadPreset(presetDir, [...layers.sets, ...list(p, "set"), ...worktreeSets(p)]);
  const { activeProfiles, applyProfiles } = await import("../harness/preset/profiles.js");
  const profiles = activeProfiles(preset, list(p, "profile"), flag(p, "no-default-profiles"));
  if (profiles.length > 0)
    preset.warnings.push(...applyProfiles(preset, profiles, workDir, "autoloop run", triggerOf(p)));
  const { capLimits } = await import("../harness/loop/budget.js");
  const ev = preset.config.event_loop;
  const capped = capLimits(ev, {
    usd: usdOption(p, "budget-usd"),
    tokens: intOption(p, "budget-tokens", "autoloop run"),
  });
  ev.max_cost_usd = capped.max_cost_usd;
  ev.max_tokens = capped.max_tokens;
  if (flag(p, "no-worktree") && preset.config.core.isolation_mode === "worktree")
    preset.config.core.isolation_mode = "run-scoped";
  for (const w of preset.warnings) process.stderr.write(`autoloop: preset ${preset.name}: ${w}\n`);
  return preset;
}

/** Aborted on SIGTERM, SIGINT or SIGHUP: the agent is stopped and `loop.stop` journaled. */
function stopOnSignals(): AbortSignal {
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (!controller.signal.aborted)
      process.stderr.write(`autoloop: ${sig}: stopping the agent and the run\n`);
    controller.abort();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  process.on("SIGHUP", onSignal);
  return controller.signal;
}

/** `--budget-usd`: a number of US dollars greater than zero. */
function usdOption(p: Parsed, name: string): number | undefined {
  const text = str(p, name);
  if (text === undefined) return undefined;
  const usd = Number(text);
  if (text.trim() === "" || !Number.isFinite(usd) || usd <= 0)
    throw new UserError(
      `autoloop run: --${name} must be a number of US dollars greater than 0, such as 2.5 (no currency sign), found ${JSON.stringify(text)}`,
    );
  return usd;
}

const STRATEGIES = ["squash", "merge", "rebase"];

/** The worktree flags as `--set` overrides (the flags win over the preset's keys). */
function worktreeSets(p: ReturnType<typeof parse>): string[] {
  if (flag(p, "worktree") && flag(p, "no-worktree"))
    throw new UserError("autoloop run: --worktree and --no-worktree contradict each other");
  const sets: string[] = [];
  if (flag(p, "worktree")) sets.push("core.isolation_mode=worktree");
  // The project's checkout, each run with its own state (run-scoped), as without worktrees.
  if (flag(p, "no-worktree")) sets.push("worktree.enabled=false", "isolation.enabled=false");
  if (flag(p, "automerge")) sets.push("worktree.automerge=true");
  if (flag(p, "keep-worktree")) sets.push('worktree.cleanup="never"');
  const strategy = str(p, "merge-strategy");
  if (strategy !== undefined) {
    if (!STRATEGIES.includes(strategy))
      throw new UserError(
        `autoloop run: --merge-strategy must be one of ${STRATEGIES.join(", ")}, found ${JSON.stringify(strategy)}`,
      );
    sets.push(`worktree.merge_strategy=${strategy}`);
  }
  return sets;
}
