// The public autoloop's config layers around a preset: defaults < the user's config file <
// the preset (the project layer) < the user's override of that preset < the repo's override
// of it < the command line's --set. Here the user and override layers become `--set`s put
// before the command line's, and the user file's only for keys the preset leaves unset.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { stringify } from "smol-toml";
import { type FieldProblem, ValidationError } from "../../util/errors.js";
import { schemaProblems } from "../../util/toml-input.js";
import { readToml } from "./preset.js";
import { repoCommandsNote, withoutCommands } from "./repo-override-commands.js";
import { presetConfigSchema } from "./schema.js";

/** The keys `--set` takes (preset.ts's `applyOverrides`). */
const SET_KEY = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;

export type LayerName = "user" | "project" | "user override" | "repo override";

export interface ConfigLayer {
  name: LayerName;
  file: string;
  /** The file's settings, or undefined when it does not exist. */
  values: Record<string, unknown> | undefined;
}

/** `$XDG_CONFIG_HOME/autoloop` (`~/.config/autoloop`): the user config, overrides, presets. */
export const configHome = (env: NodeJS.ProcessEnv) =>
  join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config"), "autoloop");

/** `$AUTOLOOP_CONFIG`, else `$XDG_CONFIG_HOME/autoloop/config.toml` (`~/.config/...`). */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.AUTOLOOP_CONFIG || join(configHome(env), "config.toml");
}

/** The user's override of one preset: `~/.config/autoloop/overrides/<preset>.toml`. */
export function userOverridePath(preset: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(configHome(env), "overrides", `${basename(preset)}.toml`);
}

/** The repo's override of one preset: `<work dir>/.autoloop/overrides/<preset>.toml`. */
export function repoOverridePath(workDir: string, preset: string): string {
  return join(workDir, ".autoloop", "overrides", `${basename(preset)}.toml`);
}

/** A preset's name for its overrides: its folder's name, or a single file's without `.toml`. */
export function presetNameOf(presetPath: string): string {
  return basename(presetPath).replace(/\.toml$/, "");
}

/** The preset's own file: `autoloops.toml` in its folder, or the single-file preset itself. */
export function projectFileOf(presetPath: string): string {
  return presetPath.endsWith(".toml") ? presetPath : join(presetPath, "autoloops.toml");
}

export function readLayer(name: LayerName, file: string): ConfigLayer {
  return { name, file, values: existsSync(file) ? readToml(file) : undefined };
}

/** Every layer of a preset run from `workDir`, lowest first. */
export function presetLayers(
  presetPath: string,
  workDir: string,
  env: NodeJS.ProcessEnv = process.env,
): ConfigLayer[] {
  const name = presetNameOf(presetPath);
  return [
    readLayer("user", userConfigPath(env)),
    readLayer("project", projectFileOf(presetPath)),
    readLayer("user override", userOverridePath(name, env)),
    readLayer("repo override", repoOverridePath(workDir, name)),
  ];
}

/**
 * The layers a run gets, and what to tell its operator. The repo override lies in the
 * project's `.autoloop/`, which runs write (docs/formats.md, "Who writes what"): a run a person
 * starts by hand takes it, named on stderr as the preset in `./presets/` would be; a scheduled
 * or chained run, which nobody watches start, does not. A scheduled run (trigger `cron`, or a
 * step or spawn of one: `scheduled`) takes no user layer either: under one user, any run's
 * agent can write `~/.config/autoloop/`, and another schedule would then run what it wrote; the
 * schedule's `set` is a scheduled run's configuration.
 */
export function runLayers(
  presetPath: string,
  workDir: string,
  trigger: string,
  env: NodeJS.ProcessEnv = process.env,
  scheduled = trigger === "cron",
): { sets: string[]; notes: string[] } {
  const layers = presetLayers(presetPath, workDir, env);
  const byHand = trigger === "cli";
  const refused = (l: ConfigLayer) =>
    (l.name === "repo override" && !byHand) ||
    (scheduled && (l.name === "user" || l.name === "user override"));
  const notes = layers
    .filter((l) => l.values !== undefined && l.name !== "project")
    .flatMap((l) =>
      refused(l)
        ? [refusedNote(l, trigger)]
        : l.name === "repo override"
          ? [
              `settings from the repo override ${l.file}`,
              ...repoHooksNote(l),
              ...repoCommandsNote(l),
            ]
          : [],
    );
  const kept = layers
    .filter((l) => !refused(l))
    .map(withoutHooks)
    .map(withoutCommands);
  return { sets: layeredSets(kept).sets, notes };
}

function refusedNote(layer: ConfigLayer, trigger: string): string {
  return layer.name === "repo override"
    ? `the repo override ${layer.file} is not applied to a ${trigger} run: the project's .autoloop/ is the runs' to write`
    : `the ${layer.name === "user" ? "user config" : "user override"} ${layer.file} is not applied to a scheduled run: any run of this user can write it; put the settings in the schedule's set`;
}

/** Why the hooks a repo override declares are left out, when it declares any. */
function repoHooksNote(layer: ConfigLayer): string[] {
  return HOOK_KEYS.some((k) => k in layer.values!)
    ? [
        `the hooks of the repo override ${layer.file} are not applied: a hook runs as you, outside the agent's limits, and the project's .autoloop/ is the runs' to write; declare hooks in the preset or your own override (autoloop config path)`,
      ]
    : [];
}

/** The keys that declare hooks (hooks.ts). */
const HOOK_KEYS = ["hooks", "hook"];

/** The repo override's settings without hooks: never a command from a file runs write. */
function withoutHooks(layer: ConfigLayer): ConfigLayer {
  if (layer.name !== "repo override" || layer.values === undefined) return layer;
  const values = Object.fromEntries(
    Object.entries(layer.values).filter(([k]) => !HOOK_KEYS.includes(k)),
  );
  return { ...layer, values };
}

/** A table's settings as dotted keys; arrays and scalars are values. */
export function flatten(values: Record<string, unknown>, prefix = ""): Array<[string, unknown]> {
  return Object.entries(values).flatMap(([key, value]): Array<[string, unknown]> => {
    const dotted = prefix === "" ? key : `${prefix}.${key}`;
    return typeof value === "object" &&
      value !== null &&
      !Array.isArray(value) &&
      !(value instanceof Date)
      ? flatten(value as Record<string, unknown>, dotted)
      : [[dotted, value]];
  });
}

/** A value as TOML text, as `--set` reads it back (a string stays a string). */
export function tomlValue(value: unknown): string {
  // An array of tables (`[[hook]]`) as inline tables: stringify would write it as `[[v]]`.
  if (Array.isArray(value) && value.some((v) => typeof v === "object" && v !== null))
    return `[ ${value.map(inlineValue).join(", ")} ]`;
  return stringify({ v: value }).replace(/^v = /, "").trimEnd();
}

function inlineValue(value: unknown): string {
  if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof Date)
    return tomlValue(value);
  const pairs = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)} = ${inlineValue(v)}`);
  return `{ ${pairs.join(", ")} }`;
}

export interface LayeredSets {
  /** To go before the command line's `--set`s. */
  sets: string[];
  /** Which layer gave each key set by a file. */
  provenance: Record<string, string>;
}

/** The `--set`s that put the user and override layers in their places around the project. */
export function layeredSets(layers: readonly ConfigLayer[]): LayeredSets {
  const project = layers.find((l) => l.name === "project");
  const projectKeys = new Set(flatten(project?.values ?? {}).map(([k]) => k));
  const sets: string[] = [];
  const provenance: Record<string, string> = {};
  for (const [key] of flatten(project?.values ?? {}))
    provenance[key] = `project (${project!.file})`;
  for (const layer of layers) {
    if (layer.values === undefined || layer.name === "project") continue;
    for (const [key, value] of flatten(layer.values)) {
      if (layer.name === "user" && projectKeys.has(key)) continue;
      if (!SET_KEY.test(key))
        throw new ValidationError([
          {
            file: layer.file,
            field: key,
            found: "this key",
            expected: "keys of letters, digits and _ (as a preset's)",
          },
        ]);
      sets.push(`${key}=${tomlValue(value)}`);
      provenance[key] = `${layer.name} (${layer.file})`;
    }
  }
  return { sets, provenance };
}

/** What is wrong with a layer's settings, checked as a preset's (a layer may lack them all). */
export function layerProblems(file: string, values: Record<string, unknown>): FieldProblem[] {
  // The one setting every preset must give is lent for the check.
  const lent = structuredClone(values);
  const backend = lent.backend;
  if (backend === undefined) lent.backend = { command: "agent" };
  else if (typeof backend === "object" && backend !== null && !("command" in backend))
    (backend as Record<string, unknown>).command = "agent";
  const result = presetConfigSchema.safeParse(lent);
  return result.success ? [] : schemaProblems(file, presetConfigSchema, result.error, values);
}
