// Where a `chain.spawn`'s preset is found, and what `validate` says of a preset's
// `[chain_spawn]`. The name comes from an agent, so it is looked up only where the run cannot
// have put a preset: never in the work dir, whatever link leads there.
import { existsSync, realpathSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { bundledPresetsDir } from "../../util/package-root.js";
import type { Preset } from "./preset.js";
import type { TopologyFinding } from "./topology-lint.js";

/** When a preset names no limit: one spawned chain, which spawns none. */
export const SPAWN_DEFAULTS = { max_depth: 1, max_children: 1 } as const;

/** What a spawning preset needs: its folder, its `[chain_spawn]`, its roles. */
type Spawner = Pick<Preset, "dir" | "config" | "topology">;

/**
 * The folders a spawned preset may come from: the scheduler's presets dir, the spawning
 * preset's own folder's (its siblings), the bundled presets.
 */
export function spawnPresetDirs(spawner: Spawner, env: NodeJS.ProcessEnv): string[] {
  // A preset folder's siblings; a single-file preset's `dir` is the folder it lies in.
  const folder = existsSync(join(spawner.dir, "autoloops.toml"));
  const own = folder ? dirname(spawner.dir) : spawner.dir;
  return [
    ...(env.AUTOLOOP_PRESETS_DIR ? [env.AUTOLOOP_PRESETS_DIR] : []),
    own,
    bundledPresetsDir(),
  ];
}

/** Preset `name`'s folder, or why there is none; `name` was checked against the preset's list. */
export function spawnPresetDir(
  name: string,
  spawner: Spawner,
  /** The run's work dir; undefined when checking a preset with no run in view (`validate`). */
  workDir: string | undefined,
  env: NodeJS.ProcessEnv,
): { dir: string } | { refused: string } {
  for (const dir of spawnPresetDirs(spawner, env)) {
    const candidate = join(dir, name);
    if (!existsSync(join(candidate, "autoloops.toml"))) continue;
    if (workDir !== undefined && inside(realpathSync(candidate), realpathSync(workDir)))
      return {
        refused: `${candidate} lies in the work dir ${workDir}, which the run can write; a spawned preset comes from the presets dir, the spawning preset's folder or the bundled presets`,
      };
    return { dir: candidate };
  }
  return {
    refused: `no preset ${JSON.stringify(name)} in ${spawnPresetDirs(spawner, env).join(", ")}`,
  };
}

function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"));
}

/** validate's word on `[chain_spawn]`: a preset it cannot find, limits left to the defaults. */
export function spawnFindings(
  spawner: Spawner,
  workDir: string | undefined,
  env: NodeJS.ProcessEnv,
): TopologyFinding[] {
  const { presets, max_depth, max_children } = spawner.config.chain_spawn;
  const emitter = spawner.topology.roles.find((r) => r.emits.includes("chain.spawn"));
  if (presets.length === 0)
    return emitter === undefined
      ? []
      : [
          {
            severity: "warning",
            field: `role ${JSON.stringify(emitter.id)}.emits`,
            found: '"chain.spawn", and no [chain_spawn] presets',
            expected:
              'the presets its runs may spawn: [chain_spawn] presets = ["review"] (else every chain.spawn is refused)',
          },
        ];
  const out: TopologyFinding[] = [];
  for (const name of presets) {
    const found = spawnPresetDir(name, spawner, workDir, env);
    if ("refused" in found)
      out.push({
        severity: "error",
        field: "chain_spawn.presets",
        found: JSON.stringify(name),
        expected: `a preset a spawn can run (${found.refused})`,
      });
  }
  if (max_depth === undefined || max_children === undefined)
    out.push({
      severity: "warning",
      field: "chain_spawn",
      found: `no ${max_depth === undefined ? "max_depth" : "max_children"}`,
      expected: `the limits named (max_depth = ${SPAWN_DEFAULTS.max_depth}, max_children = ${SPAWN_DEFAULTS.max_children} apply meanwhile): a run's agent asks for spawns, the preset says how many`,
    });
  return out;
}
