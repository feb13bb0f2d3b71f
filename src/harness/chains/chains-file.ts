// `chains.toml` in a project: named sequences of presets, each step a run of its own, with
// per-step backend overrides and a budget (the public autoloop's format).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";
import { ValidationError } from "../../util/errors.js";
import { parseTomlBytes, schemaProblems } from "../../util/toml-input.js";

z.config(en());

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const presetName = z.string().check(z.minLength(1, "a preset name or folder"));

/** Backend keys a step may override (the rest of the preset's backend stays). */
const backendOverride = z.strictObject({
  kind: z.optional(z.string()),
  command: z.optional(z.string().check(z.minLength(1))),
  agent: z.optional(z.string()),
  args: z.optional(z.array(z.string())),
  prompt_mode: z.optional(z.enum(["arg", "stdin", "file"])),
  timeout_ms: z.optional(z.int().check(z.gte(1))),
  model: z.optional(z.string()),
});

const structuredStep = z.strictObject({
  preset: presetName,
  backend: z.optional(backendOverride),
  /** Our extension: this step's event_loop.max_iterations. */
  max_iterations: z.optional(z.int().check(z.gte(1))),
});

const chainEntry = z.looseObject({
  name: z.string().check(z.regex(NAME, "a chain name (letters, digits, . _ -)")),
  steps: z.optional(z.array(presetName)),
  step: z.optional(z.array(structuredStep)),
});

const budget = z.looseObject({
  max_depth: z._default(z.int().check(z.gte(1)), 5),
  max_steps: z._default(z.int().check(z.gte(1)), 50),
  max_runtime_ms: z.optional(z.int().check(z.gte(1))),
  max_children: z._default(z.int().check(z.gte(0)), 10),
  max_consecutive_failures: z._default(z.int().check(z.gte(1)), 3),
});

const chainsFileSchema = z.looseObject({
  chain: z._default(z.array(chainEntry), []),
  budget: z.prefault(budget, {}),
});

export interface ChainStep {
  preset: string;
  /** The preset's folder, found already (a spawned chain's: never looked up in the project). */
  dir?: string;
  backend?: z.output<typeof backendOverride>;
  maxIterations?: number;
}

export interface Chain {
  name: string;
  steps: ChainStep[];
}

export type ChainBudget = z.output<typeof budget>;

export interface ChainsFile {
  file: string;
  chains: Chain[];
  budget: ChainBudget;
}

export function chainsFilePath(projectDir: string): string {
  return join(projectDir, "chains.toml");
}

/** The project's chains; none (and the default budget) when it has no chains.toml. */
export function readChainsFile(projectDir: string): ChainsFile {
  const file = chainsFilePath(projectDir);
  const raw = existsSync(file)
    ? parseTomlBytes(file, readFileSync(file))
    : { ok: true as const, value: {} };
  if (!raw.ok) throw new ValidationError([raw.problem]);
  const parsed = chainsFileSchema.safeParse(raw.value);
  if (!parsed.success)
    throw new ValidationError(schemaProblems(file, chainsFileSchema, parsed.error, raw.value));
  const chains: Chain[] = [];
  const seen = new Set<string>();
  parsed.data.chain.forEach((c, i) => {
    const problem = (field: string, found: string, expected: string) =>
      new ValidationError([{ file, field: `chain[${i}].${field}`, found, expected }]);
    if (seen.has(c.name))
      throw problem("name", JSON.stringify(c.name), "a name no other [[chain]] has");
    seen.add(c.name);
    if (c.steps !== undefined && c.step !== undefined)
      throw problem("steps", "both steps = [...] and [[chain.step]]", "one of the two forms");
    const steps: ChainStep[] =
      c.step?.map((s) => ({
        preset: s.preset,
        ...(s.backend && { backend: s.backend }),
        ...(s.max_iterations !== undefined && { maxIterations: s.max_iterations }),
      })) ?? (c.steps ?? []).map((preset) => ({ preset }));
    if (steps.length === 0)
      throw problem("steps", "no steps", 'at least one preset, e.g. steps = ["autofix", "review"]');
    chains.push({ name: c.name, steps });
  });
  return { file, chains, budget: parsed.data.budget };
}

/** The `--set` overrides a step's backend table stands for. */
export function stepOverrides(step: ChainStep): string[] {
  const sets: string[] = [];
  // `model` is added to the args once the preset is loaded (see chain-run.ts).
  for (const [key, value] of Object.entries(step.backend ?? {}))
    if (value !== undefined && key !== "model")
      sets.push(`backend.${key}=${JSON.stringify(value)}`);
  return sets;
}
