// The agent an iteration runs: `backend.*`, overlaid by the first suggested role's own
// `backend_*` settings (the public autoloop's rule: each set key wins, `backend_args`
// replaces the list, never merges), so a verifier can run on another CLI or model.

import { withBackend } from "../preset/backend-overlay.js";
import type { Preset } from "../preset/preset.js";
import { agentCommand } from "./agent-call.js";
import type { Run } from "./run-state.js";

export interface IterationAgent {
  agent: Run["agent"];
  timeoutMs: number;
  /** The role whose settings apply, when one has any. */
  role: string | undefined;
}

/** The preset as the role runs it; undefined when the role sets nothing of its own. */
export function presetForRole(preset: Preset, roleId: string | undefined): Preset | undefined {
  const own = preset.topology.roles.find((r) => r.id === roleId)?.backend;
  return own === undefined ? undefined : withBackend(preset, own);
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
