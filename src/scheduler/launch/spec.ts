// What the scheduler launches for a run: the spec, its argv (never a shell) and its environment.
import type { PullRequestDelivery, ReviewDelivery } from "../config/deliver.js";
import type { RunFetch } from "../config/fetch.js";

interface LaunchCommon {
  runId: string;
  schedule: string;
  /** The slot the run fires for (UTC instant); `now` for a manual run. */
  slot: Date;
  /** The schedule's project_dir; the harness journals under `<cwd>/.autoloop/`. */
  cwd: string;
  /** Merged over the daemon's environment. */
  env?: Record<string, string>;
  /** 0 or undefined: no scheduler timeout. */
  timeoutMs?: number;
  /** SIGTERM → SIGKILL grace; default 10 s. */
  killGraceMs?: number;
  /** `<state>/output/<run-id>.log` */
  outputPath: string;
  outputCapBytes?: number;
  /** A retry of the slot (`retry`): its attempt (2 and up) and the slot's first run. */
  retry?: { attempt: number; parentRunId: string };
}

export interface PresetLaunch extends LaunchCommon {
  kind: "preset";
  /** argv prefix of the harness CLI, e.g. `["autoloop"]` or `["node", "dist/cli/autoloop.js"]`. */
  harness: readonly string[];
  preset: string;
  objective: string;
  maxIterations?: number;
  /** Env files for the agent: paths only, the harness reads them (secrets stay out of argv). */
  envFiles?: readonly string[];
  /** "worktree" → `--worktree`, "shared" → `--no-worktree`; unset: the preset's own. */
  isolation?: "shared" | "worktree" | undefined;
  /** `--set key=value` overrides of the preset (the schedule's `set`). */
  sets?: readonly string[];
  /** What the schedule's budget leaves this run: `--budget-usd`, `--budget-tokens`. */
  budget?: RunCeiling;
  /** The remote fetched before the run starts (`fetch`, `deliver`). */
  fetch?: RunFetch;
  /** `<state_dir>/git`, where the schedule's own repository fetches (`forge/own-repo.ts`). */
  gitDir?: string;
  /** The pull request's token, when `fetch` is from its remote: a private remote fetches with it. */
  fetchToken?: { forge: PullRequestDelivery["forge"]; token: PullRequestDelivery["token"] };
  /** Where its worktree starts: the commit fetched and the remote's branch it came from. */
  startFrom?: { branch: string; commit: string };
  /** A review run: the pull request it checks out and reviews (`deliver.review`). */
  review?: { number: number; settings: ReviewDelivery };
}

/** A ceiling on a run's own budget (the lower one holds); unset keys do not limit. */
export interface RunCeiling {
  usd?: number;
  tokens?: number;
}

/** A chain of chains.toml, run by the harness's `chain run`. */
export interface ChainLaunch extends LaunchCommon {
  kind: "chain";
  harness: readonly string[];
  chain: string;
  objective: string;
  envFiles?: readonly string[];
  sets?: readonly string[];
  /** Where the steps' presets are found first (the scheduler's presets_dir). */
  presetsDir?: string;
}

export interface CommandLaunch extends LaunchCommon {
  kind: "command";
  command: readonly string[];
}

export type LaunchSpec = PresetLaunch | ChainLaunch | CommandLaunch;

/** The full argv of a run (first element is the program). */
export function launchArgv(spec: LaunchSpec): string[] {
  if (spec.kind === "command") return [...spec.command];
  const common = [
    "--trigger",
    "cron",
    "--run-id",
    spec.runId,
    ...(spec.retry ? ["--parent-run-id", spec.retry.parentRunId] : []),
    ...(spec.envFiles ?? []).flatMap((file) => ["--env-file", file]),
    ...(spec.sets ?? []).flatMap((set) => ["--set", set]),
  ];
  // An objective that starts with "-" would read as an option: it goes after "--" then.
  const objective = (head: string[], rest: string[]) =>
    spec.objective.startsWith("-")
      ? [...head, ...common, ...rest, "--", spec.objective]
      : [...head, spec.objective, ...common, ...rest];
  if (spec.kind === "chain") return objective([...spec.harness, "chain", "run", spec.chain], []);
  return objective(
    [...spec.harness, "run", spec.preset],
    [
      ...(spec.maxIterations ? ["--max-iterations", String(spec.maxIterations)] : []),
      ...(spec.isolation === "worktree" ? ["--worktree"] : []),
      ...(spec.isolation === "shared" ? ["--no-worktree"] : []),
      ...(spec.budget?.usd !== undefined ? ["--budget-usd", String(spec.budget.usd)] : []),
      ...(spec.budget?.tokens !== undefined ? ["--budget-tokens", String(spec.budget.tokens)] : []),
    ],
  );
}

/**
 * What a run inherits of the daemon's environment: all of it but `AUTOLOOP_*` variables
 * (inherited from an enclosing run: a daemon started from inside a loop must not point its
 * runs at that loop's journal or tasks; and the operator's own `AUTOLOOP_OPERATOR_DIR`).
 */
export function inheritedEnv(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined && !key.startsWith("AUTOLOOP_")) env[key] = value;
  }
  return env;
}

/** The run's environment: what it inherits, the schedule's env and the correlation variables. */
export function launchEnv(
  spec: LaunchSpec,
  base: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  return {
    ...inheritedEnv(base),
    ...spec.env,
    AUTOLOOP_CRON_RUN_ID: spec.runId,
    AUTOLOOP_CRON_SCHEDULE: spec.schedule,
    AUTOLOOP_CRON_SLOT: spec.slot.toISOString(),
    AUTOLOOP_CRON_ATTEMPT: String(spec.retry?.attempt ?? 1),
    ...(spec.kind === "chain" && spec.presetsDir && { AUTOLOOP_PRESETS_DIR: spec.presetsDir }),
    // Our harness makes the run's worktree from here; another harness ignores them.
    ...(spec.kind === "preset" &&
      spec.startFrom && {
        AUTOLOOP_WORKTREE_FROM: spec.startFrom.commit,
        AUTOLOOP_WORKTREE_BASE: spec.startFrom.branch,
      }),
  };
}
