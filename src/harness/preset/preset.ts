// Loads a preset directory: resolves the name, parses and validates its TOML files,
// applies `--set` overrides and reads role prompts and `harness.md`.
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { parse } from "smol-toml";
import type * as z from "zod/mini";
import { type FieldProblem, UserError, ValidationError } from "../../util/errors.js";
import { bundledPresetsDir } from "../../util/package-root.js";
import { parseTomlBytes, schemaProblems } from "../../util/toml-input.js";
import { adaptReferenceConfig, adaptReferenceTopology } from "./compat.js";
import { modelWarnings } from "./model-lint.js";
import {
  type PresetConfig,
  presetConfigSchema,
  type TopologyFile,
  topologySchema,
} from "./schema.js";
import { buildTopology, type Topology } from "./topology.js";

export const PRESET_NAME = /^[a-z0-9][a-z0-9._-]*$/;

export interface Preset {
  name: string;
  dir: string;
  config: PresetConfig;
  topology: Topology;
  /** Standing instructions from `harness.md` (or `harness.instructions_file`), or "". */
  harnessInstructions: string;
  /** Keys of other harnesses this one does not implement, named (see preset-compat.ts). */
  warnings: string[];
}

/** Finds a preset: a path, else `<cwd>/presets/<name>`, else the bundled `presets/<name>`. */
export function resolvePresetDir(
  nameOrPath: string,
  cwd: string,
  presetsDirs: string[] = [],
): string {
  const asPath = resolve(cwd, nameOrPath);
  if (isDirectory(asPath) && existsSync(join(asPath, "autoloops.toml"))) return asPath;
  // A single-file preset: config and topology (inline role prompts) in one .toml.
  if (nameOrPath.endsWith(".toml") && existsSync(asPath) && !isDirectory(asPath)) return asPath;
  if (PRESET_NAME.test(nameOrPath) && !nameOrPath.includes("..")) {
    for (const dir of [...presetsDirs, join(cwd, "presets"), bundledPresetsDir()]) {
      const candidate = join(dir, nameOrPath);
      if (existsSync(join(candidate, "autoloops.toml"))) return candidate;
    }
  }
  const looked = PRESET_NAME.test(nameOrPath)
    ? `${asPath}, ${join(cwd, "presets", nameOrPath)} and the bundled ${join(bundledPresetsDir(), nameOrPath)}`
    : asPath;
  throw new UserError(
    `preset ${JSON.stringify(nameOrPath)} not found (looked for autoloops.toml in ${looked}); ` +
      'pass a preset directory or a bundled name such as "demo"',
  );
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Parses a TOML file; syntax errors name the file, line and column. */
export function readToml(file: string): Record<string, unknown> {
  const toml = parseTomlBytes(file, readFileSync(file));
  if (!toml.ok) throw new ValidationError([toml.problem]);
  return toml.value;
}

/** Parses a `--set` value as a TOML value ("5", "true", "[\"a\"]"), else keeps the text. */
export function parseSetValue(text: string): unknown {
  try {
    return (parse(`v = ${text}`) as { v: unknown }).v;
  } catch {
    return text;
  }
}

/** Applies `key.path=value` overrides to a parsed config object. */
export function applyOverrides(
  raw: Record<string, unknown>,
  sets: readonly string[],
): Record<string, unknown> {
  for (const set of sets) {
    const eq = set.indexOf("=");
    const key = eq > 0 ? set.slice(0, eq).trim() : "";
    if (!/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(key)) {
      throw new UserError(
        `--set ${JSON.stringify(set)}: expected key=value with a dotted key, e.g. event_loop.max_iterations=5`,
      );
    }
    const parts = key.split(".");
    let node = raw;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      if (typeof next !== "object" || next === null || Array.isArray(next)) node[part] = {};
      node = node[part] as Record<string, unknown>;
    }
    const last = parts.at(-1)!;
    const text = set.slice(eq + 1);
    const value = parseSetValue(text);
    // A key that holds text keeps text: `--set backend.command=true` is the program `true`.
    node[last] = typeof node[last] === "string" && typeof value !== "string" ? text : value;
  }
  return raw;
}

function validate<T extends z.ZodMiniType>(schema: T, input: unknown, file: string): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(schemaProblems(file, schema, result.error, input));
  return result.data;
}

function readRolePrompt(
  dir: string,
  topologyFile: string,
  index: number,
  role: TopologyFile["role"][number],
): string {
  if (role.prompt !== undefined) return role.prompt;
  const rel = role.prompt_file ?? join("roles", `${role.id}.md`);
  const file = resolve(dir, rel);
  const inside = relative(dir, file);
  if (inside.startsWith("..") || isAbsolute(inside)) {
    const problem: FieldProblem = {
      file: topologyFile,
      field: `role[${index}].prompt_file`,
      found: JSON.stringify(rel),
      expected: "a path inside the preset directory",
    };
    throw new ValidationError([problem]);
  }
  if (existsSync(file)) return readFileSync(file, "utf8");
  if (role.prompt_file !== undefined) {
    throw new ValidationError([
      {
        file: topologyFile,
        field: `role[${index}].prompt_file`,
        found: JSON.stringify(rel),
        expected: `an existing file (${file} is missing)`,
      },
    ]);
  }
  return "";
}

/**
 * Loads and validates the preset at `dir` (a folder with autoloops.toml, or a single-file
 * preset's .toml), with `--set` overrides applied to its config.
 */
export function loadPreset(dir: string, sets: readonly string[] = []): Preset {
  if (dir.endsWith(".toml") && !isDirectory(dir)) return loadPresetFile(dir, sets);
  const configFile = join(dir, "autoloops.toml");
  const rawConfig = applyOverrides(readToml(configFile), sets);
  const warnings = adaptReferenceConfig(rawConfig);
  const config = validate(presetConfigSchema, rawConfig, configFile);
  applyIsolationKeys(config, rawConfig);
  const topologyFile = join(dir, "topology.toml");
  const rawTopology = existsSync(topologyFile) ? readToml(topologyFile) : {};
  warnings.push(...adaptReferenceTopology(rawTopology, false));
  const topoData = validate(topologySchema, rawTopology, topologyFile);
  if (
    topoData.completion !== undefined &&
    !sets.some((s) => s.startsWith("event_loop.completion_event="))
  ) {
    config.event_loop.completion_event = topoData.completion;
  }
  const prompts = topoData.role.map((role, i) => readRolePrompt(dir, topologyFile, i, role));
  const topology = buildTopology(topoData, prompts, topologyFile);
  warnings.push(...modelWarnings(config, topology));
  return {
    name: basename(dir),
    dir,
    config,
    topology,
    harnessInstructions: harnessInstructions(dir, rawConfig),
    warnings,
  };
}

/** A single-file preset: config tables, topology tables and inline role prompts in one file. */
function loadPresetFile(file: string, sets: readonly string[]): Preset {
  const raw = applyOverrides(readToml(file), sets);
  const warnings = [...adaptReferenceConfig(raw, true), ...adaptReferenceTopology(raw, true)];
  const config = validate(presetConfigSchema, raw, file);
  applyIsolationKeys(config, raw);
  const topoData = validate(topologySchema, raw, file);
  if (
    topoData.completion !== undefined &&
    !sets.some((s) => s.startsWith("event_loop.completion_event="))
  )
    config.event_loop.completion_event = topoData.completion;
  const dir = dirname(file);
  const prompts = topoData.role.map((role, i) => readRolePrompt(dir, file, i, role));
  const topology = buildTopology(topoData, prompts, file);
  warnings.push(...modelWarnings(config, topology));
  return {
    name:
      typeof raw.name === "string" && PRESET_NAME.test(raw.name)
        ? raw.name
        : basename(file, ".toml"),
    dir,
    config,
    topology,
    harnessInstructions: harnessInstructions(dir, raw),
    warnings,
  };
}

/** `harness.instructions_file` (a file inside the preset), else `harness.md` if there is one. */
function harnessInstructions(dir: string, raw: Record<string, unknown>): string {
  const named = (raw.harness as { instructions_file?: unknown } | undefined)?.instructions_file;
  if (named === undefined) {
    const file = join(dir, "harness.md");
    return existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  }
  const file = typeof named === "string" ? resolve(dir, named) : "";
  const inside = relative(dir, file);
  const problem = (expected: string): never => {
    throw new ValidationError([
      {
        file: join(dir, "autoloops.toml"),
        field: "harness.instructions_file",
        found: JSON.stringify(named),
        expected,
      },
    ]);
  };
  if (typeof named !== "string") problem("a file name inside the preset folder");
  if (inside.startsWith("..") || isAbsolute(inside)) problem("a path inside the preset folder");
  if (!existsSync(file)) problem(`an existing file (${file} is missing)`);
  return readFileSync(file, "utf8").trim();
}

/** `worktree.enabled` (or its alias `isolation.enabled`) asks for worktree isolation. */
function applyIsolationKeys(config: PresetConfig, raw: Record<string, unknown>): void {
  const alias = (raw.isolation as { enabled?: unknown } | undefined)?.enabled === true;
  if (config.worktree.enabled || alias) config.core.isolation_mode = "worktree";
}
