// The agent an iteration runs: `backend.*`, overlaid by the first suggested role's own
// `backend_*` settings (the public autoloop's rule: each set key wins, `backend_args`
// replaces the list, never merges), so a verifier can run on another CLI or model.
import type { Preset } from "../preset/preset.js";
import { agentCommand } from "./agent-call.js";
import type { Run } from "./run-state.js";

export interface IterationAgent {
  agent: Run["agent"];
  timeoutMs: number;
  /** The role whose settings apply, when one has any. */
  role: string | undefined;
}

/** The preset as the role runs it; the role's own command is read by its own name. */
export function presetForRole(preset: Preset, roleId: string | undefined): Preset | undefined {
  const role = preset.topology.roles.find((r) => r.id === roleId);
  const own = role?.backend;
  if (own === undefined) return undefined;
  const backend = preset.config.backend;
  return {
    ...preset,
    config: {
      ...preset.config,
      backend: {
        ...backend,
        command: own.command ?? backend.command,
        args: own.args ?? backend.args,
        prompt_mode: own.prompt_mode ?? backend.prompt_mode,
        timeout_ms: own.timeout_ms ?? backend.timeout_ms,
        ...(own.command !== undefined && { agent: undefined }),
      },
    },
  };
}

export function iterationAgent(run: Run, roles: readonly string[]): IterationAgent {
  const rolePreset = presetForRole(run.preset, roles[0]);
  if (rolePreset === undefined)
    return { agent: run.agent, timeoutMs: run.preset.config.backend.timeout_ms, role: undefined };
  return {
    agent: agentCommand(rolePreset, run.paths, run.runId),
    timeoutMs: rolePreset.config.backend.timeout_ms,
    role: roles[0],
  };
}
