// Dynamic chains: a run, then the chains its agent asked for with `chain.spawn`, each run
// once the run has ended, as a chain of its own (lineage in `chain.spawn` and `chain.start`),
// within the spawning preset's limits and what is left of the root run's budget.
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { JournalWriter } from "../../journal/append.js";
import { type FieldValue, journalTimestamp } from "../../journal/codec.js";
import { createExclusiveFile } from "../../util/link-create.js";
import { linkUnder } from "../../util/untrusted-file.js";
import { addToEndRecord, readEndRecord } from "../control/end-record.js";
import { fileSize } from "../loop/launch-metadata.js";
import { type RunOptions, type RunResult, runLoop } from "../loop/run-loop.js";
import { SPAWN_DEFAULTS, spawnPresetDir } from "../preset/spawn-presets.js";
import { isValidRunId } from "../run-id.js";
import { type ChainResult, runChain } from "./chain-run.js";
import { pendingSpawns } from "./spawn-pending.js";
import {
  capToPool,
  charge,
  poolOf,
  poolSpent,
  type RunSpent,
  type SpawnPool,
} from "./spawn-pool.js";
import { decideSpawn, type SpawnRequest } from "./spawn-request.js";

/** What every run of one spawn tree shares, and where in it a run stands. */
interface SpawnTree {
  pool: SpawnPool;
  /** The root run's trigger: a scheduled root's spawns are scheduled runs too. */
  trigger: RunOptions["trigger"];
  depth: number;
  /** The lowest limits of the presets above (a spawn never raises its parent's). */
  maxDepth: number;
  maxChildren: number;
  /** What the runs below the root spent, added to the root's end record. */
  below: { costUsd: number; totalTokens: number; unpricedIterations: number };
}

export type SpawnedChain = Omit<ChainResult, "journalFile">;

export type RunWithSpawns = RunResult & { spawned?: SpawnedChain[] };

/**
 * A run (`autoloop run`, a step of `autoloop chain`), then the chains it spawned. `trigger`:
 * how the root was started (a scheduled chain's step runs as `chain`, its spawns as `cron`).
 */
export async function runWithSpawns(
  opts: RunOptions,
  above?: SpawnTree,
  trigger: RunOptions["trigger"] = opts.trigger,
): Promise<RunWithSpawns> {
  const ev = opts.preset.config.event_loop;
  const tree = above ?? rootTree(opts, trigger);
  const run =
    above === undefined
      ? opts
      : { ...opts, maxIterations: capToPool(ev, opts.maxIterations, tree.pool, Date.now()) };
  const journalFile = resolve(opts.workDir, opts.preset.config.core.journal_file);
  // A resumed run's earlier requests are in its earlier records (those acted on are skipped).
  const offset = opts.resume === undefined ? fileSize(journalFile) : 0;
  const result = await runLoop(run);
  const spent = spentBy(result, opts.env);
  charge(tree.pool, spent);
  if (above !== undefined) {
    tree.below.costUsd += spent.costUsd;
    tree.below.totalTokens += spent.totalTokens;
    tree.below.unpricedIterations += spent.unpriced;
  }
  return spawnAndBook(run, result, offset, tree, above === undefined);
}

/**
 * `autoloop resume` of a run that completed before its harness acted on all its requests
 * (it was killed in between): the pending ones are acted on now, as they would have been.
 */
export async function spawnPending(
  opts: RunOptions,
  result: RunResult,
  trigger: RunOptions["trigger"],
): Promise<RunWithSpawns> {
  const tree = rootTree(opts, trigger);
  charge(tree.pool, spentBy(result, opts.env));
  return spawnAndBook(opts, result, 0, tree, true);
}

/** The requests acted on; a root's end record then books what its tree spent below it. */
async function spawnAndBook(
  opts: RunOptions,
  result: RunResult,
  offset: number,
  tree: SpawnTree,
  root: boolean,
): Promise<RunWithSpawns> {
  const spawned = await spawnRequested(opts, result, offset, tree);
  if (root && spawned.length > 0)
    addToEndRecord(result.runId, result.journalFile, opts.env, tree.below, (line) =>
      opts.progress?.(line),
    );
  return spawned.length === 0 ? result : { ...result, spawned };
}

/** A root's tree: its budget is its own `max_iterations` (a resumed run's new one) and limits. */
function rootTree(opts: RunOptions, trigger: RunOptions["trigger"]): SpawnTree {
  const { resume } = opts;
  const max = resume ? resume.fromIteration - 1 + resume.addIterations : opts.maxIterations;
  return {
    pool: poolOf(opts.preset.config.event_loop, max, Date.now()),
    trigger,
    depth: 0,
    maxDepth: Number.POSITIVE_INFINITY,
    maxChildren: Number.POSITIVE_INFINITY,
    below: { costUsd: 0, totalTokens: 0, unpricedIterations: 0 },
  };
}

/** What a run spent, from its end record (the harness's own count). */
function spentBy(r: RunResult, env: NodeJS.ProcessEnv): RunSpent & { unpriced: number } {
  const end = readEndRecord(r.runId, r.journalFile, env);
  return {
    iterations: end?.iterations ?? r.iterations,
    costUsd: end?.costUsd ?? 0,
    totalTokens: end?.totalTokens ?? 0,
    unpriced: end?.unpricedIterations ?? 0,
  };
}

/** The run's `chain.spawn` requests, in order: each refused (journaled why) or run. */
async function spawnRequested(
  opts: RunOptions,
  result: RunResult,
  offset: number,
  tree: SpawnTree,
): Promise<SpawnedChain[]> {
  const { requests, spawnedBefore } = pendingSpawns(result.journalFile, result.runId, offset);
  if (requests.length === 0) return [];
  const own = opts.preset.config.chain_spawn;
  const below: SpawnTree = {
    ...tree, // the pool and the spend below are shared, not copied
    depth: tree.depth + 1,
    maxDepth: Math.min(tree.maxDepth, own.max_depth ?? SPAWN_DEFAULTS.max_depth),
    maxChildren: Math.min(tree.maxChildren, own.max_children ?? SPAWN_DEFAULTS.max_children),
  };
  const journal = new JournalWriter(result.journalFile);
  const record = (run: string, topic: string, fields: Record<string, FieldValue>) =>
    journal.append({ shape: "system", run, topic, ts: journalTimestamp(), v: 1, fields });
  const spawned: SpawnedChain[] = [];
  try {
    for (const request of requests) {
      if (request.shape !== "agent") continue;
      const before = spawnedBefore + spawned.length;
      const ready = readyToSpawn(request.payload, opts, result, below, before);
      if (ready.kind === "refused") {
        record(result.runId, "chain.spawn.refused", {
          steps: ready.steps,
          reason: ready.reason,
          detail: ready.detail,
        });
        opts.progress?.(`chain.spawn refused (${ready.reason}): ${ready.detail}`);
        continue;
      }
      recordSpawn(record, result.journalFile, ready.lineage, ready.request, opts, tree.trigger);
      spawned.push(await runSpawnedOrSay(opts, ready.lineage, ready.steps, ready.request, below));
    }
  } finally {
    journal.close();
  }
  return spawned;
}

type Ready =
  | { kind: "refused"; reason: string; detail: string; steps: string }
  | {
      kind: "ready";
      request: SpawnRequest;
      steps: Array<{ preset: string; dir: string }>;
      lineage: Lineage;
    };

/** One request judged (`decideSpawn`), its presets found, its chain id: ready, or why not. */
function readyToSpawn(
  payload: string,
  opts: RunOptions,
  result: RunResult,
  below: SpawnTree,
  spawned: number,
): Ready {
  const decision = decideSpawn(payload, {
    allowed: opts.preset.config.chain_spawn.presets,
    depth: below.depth - 1,
    maxDepth: below.maxDepth,
    maxChildren: below.maxChildren,
    spawned,
    parentCompleted: result.outcome === "completed" && !opts.signal.aborted,
    poolSpent: poolSpent(below.pool, Date.now()),
  });
  if (decision.kind === "refused") return decision;
  const { request } = decision;
  const names = request.steps.join(",");
  const steps: Array<{ preset: string; dir: string }> = [];
  for (const preset of request.steps) {
    const found = spawnPresetDir(preset, opts.preset, opts.workDir, opts.env);
    if ("refused" in found)
      return { kind: "refused", reason: "not_found", detail: found.refused, steps: names };
    steps.push({ preset, dir: found.dir });
  }
  const chainId = `${result.runId}-spawn-${spawned + 1}`;
  if (!isValidRunId(`${chainId}-step-${steps.length}`))
    return {
      kind: "refused",
      reason: "run_id_too_long",
      detail: `${chainId}'s runs' ids would pass 128 characters`,
      steps: names,
    };
  return {
    kind: "ready",
    request,
    steps,
    lineage: { chainId, parentId: result.runId, depth: below.depth },
  };
}

interface Lineage {
  chainId: string;
  parentId: string;
  depth: number;
}

/**
 * `chain.spawn` in the public field order (`chain_id`, `parent_id`, `steps`, `justification`),
 * then ours; and the spec file the public autoloop keeps in `chains/specs/`.
 */
function recordSpawn(
  record: (run: string, topic: string, fields: Record<string, FieldValue>) => void,
  journalFile: string,
  l: Lineage,
  request: SpawnRequest,
  opts: RunOptions,
  trigger: string,
): void {
  const steps = request.steps.join(",");
  // Under the spawning run (the chain's own id is new until its `chain.start`).
  record(l.parentId, "chain.spawn", {
    chain_run: l.chainId,
    chain_id: l.chainId,
    parent_id: l.parentId,
    steps,
    justification: request.justification,
    depth: String(l.depth),
    objective: request.objective || opts.objective,
    trigger,
  });
  const specs = join(dirname(journalFile), "chains", "specs");
  // Created new, never through a link or file the run planted: evidence, never read here.
  const link = linkUnder(dirname(journalFile), specs);
  if (link !== undefined) {
    opts.progress?.(`chain ${l.chainId}: no spec file: ${link} is a symbolic link`);
    return;
  }
  mkdirSync(specs, { recursive: true });
  const spec = {
    chain_id: l.chainId,
    parent_id: l.parentId,
    steps,
    justification: request.justification,
  };
  if (!createExclusiveFile(join(specs, `${l.chainId}.json`), `${JSON.stringify(spec)}\n`))
    opts.progress?.(`chain ${l.chainId}: its spec file exists already; left as it is`);
}

/**
 * The spawned chain; one that cannot start (a preset that does not load, an id taken) is a
 * failed chain, said on stderr: the run that asked for it has ended already.
 */
async function runSpawnedOrSay(
  opts: RunOptions,
  l: Lineage,
  steps: Array<{ preset: string; dir: string }>,
  request: SpawnRequest,
  tree: SpawnTree,
): Promise<SpawnedChain> {
  try {
    return await runSpawned(opts, l, steps, request, tree);
  } catch (err) {
    const detail = (err as Error).message.split("\n")[0]!;
    opts.progress?.(`chain ${l.chainId} did not start: ${detail}`);
    return {
      chainRunId: l.chainId,
      name: l.chainId,
      outcome: "failed",
      reason: `chain_error: ${detail}`,
      steps: [],
    };
  }
}

/** The spawned chain, run as `autoloop chain` runs one, each step able to spawn in turn. */
async function runSpawned(
  opts: RunOptions,
  l: Lineage,
  steps: Array<{ preset: string; dir: string }>,
  request: SpawnRequest,
  tree: SpawnTree,
): Promise<SpawnedChain> {
  const { journalFile: _, ...chain } = await runChain({
    projectDir: opts.workDir,
    name: l.chainId,
    steps,
    budget: {
      max_depth: tree.maxDepth,
      max_steps: steps.length,
      max_children: tree.maxChildren,
      max_consecutive_failures: 1,
    },
    objective: request.objective || opts.objective,
    chainRunId: l.chainId,
    trigger: tree.trigger,
    parentRunId: l.parentId,
    env: opts.env,
    ...(opts.secretEnv && { secretEnv: opts.secretEnv }),
    signal: opts.signal,
    ...(opts.progress && { progress: opts.progress }),
    runStepLoop: (o) => runWithSpawns(o, tree),
    budgetSpent: () => poolSpent(tree.pool, Date.now()),
  });
  return chain;
}
