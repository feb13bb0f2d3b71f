// A chain schedule's chain must be in its project's chains.toml (read once per project).
import { type ChainsFile, readChainsFile } from "../../harness/chains/chains-file.js";
import { resolvePresetDir } from "../../harness/preset/preset.js";
import { ValidationError } from "../../util/errors.js";
import { nearestKey } from "../../util/toml-input.js";
import type { Schedule } from "./schedule-file.js";

type Problem = (s: Schedule, field: string, found: string, expected: string) => void;

export function chainChecker(
  presetsDir: string,
): (s: Extract<Schedule, { kind: "chain" }>, problem: Problem) => void {
  const files = new Map<string, ChainsFile | Error>();
  return (s, problem) => {
    let file = files.get(s.projectDir);
    if (file === undefined) {
      try {
        file = readChainsFile(s.projectDir);
      } catch (err) {
        file = err instanceof Error ? err : new Error(String(err));
      }
      files.set(s.projectDir, file);
    }
    if (file instanceof Error) {
      const why =
        file instanceof ValidationError
          ? file.problems
              .map((p) => `${p.field}: found ${p.found}; expected ${p.expected}`)
              .join("; ")
          : file.message;
      problem(
        s,
        "chain",
        JSON.stringify(s.chain),
        `a valid chains.toml in ${s.projectDir} (${why})`,
      );
      return;
    }
    const chain = file.chains.find((c) => c.name === s.chain);
    if (chain !== undefined) {
      // Each step's preset where the run will look: presets_dir, the project's, the bundled.
      chain.steps.forEach((step, i) => {
        try {
          resolvePresetDir(step.preset, s.projectDir, [presetsDir]);
        } catch (err) {
          problem(
            s,
            "chain",
            JSON.stringify(s.chain),
            `a chain whose steps' presets exist (step ${i + 1}: ${(err as Error).message})`,
          );
        }
      });
      return;
    }
    const names = file.chains.map((c) => c.name);
    const near = nearestKey(s.chain, names);
    problem(
      s,
      "chain",
      JSON.stringify(s.chain),
      `the name of a [[chain]] in ${file.file} (${near ? `did you mean ${JSON.stringify(near)}?` : names.length > 0 ? `known: ${names.join(", ")}` : "it has none"})`,
    );
  };
}
