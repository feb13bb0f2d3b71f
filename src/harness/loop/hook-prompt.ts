// The pre_iteration hooks, after the prompt stage and before the agent: a hook with
// `mutate = "prompt"` may hand the agent another prompt (the preset's own command, so its text
// is the preset author's), which replaces the prompt file the agent reads.
import { writeFileSync } from "node:fs";
import type { HookMoment } from "./hook-run.js";
import { phaseStage } from "./hook-step.js";
import type { Terminal } from "./judge.js";
import type { Prompted } from "./prompt-step.js";
import type { Run } from "./run-state.js";

export type PreIteration = { kind: "ended"; ended: Terminal } | { kind: "go"; prompted: Prompted };

export async function preIterationStage(
  run: Run,
  moment: HookMoment,
  prompted: Prompted,
): Promise<PreIteration> {
  const { ended, mutation } = await phaseStage(run, "pre_iteration", moment);
  if (ended !== undefined) return { kind: "ended", ended };
  if (mutation?.kind !== "prompt") return { kind: "go", prompted };
  writeFileSync(run.paths.promptPath, mutation.prompt);
  run.progress(`iteration ${moment.iteration}: a pre_iteration hook rewrote the prompt`);
  return { kind: "go", prompted: { ...prompted, prompt: mutation.prompt } };
}
