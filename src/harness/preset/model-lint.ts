// Where a preset's model cannot go: `backend.model` or a role's `backend_model` for a backend
// whose CLI has no model flag (a plain command). Named in a warning at load and by
// `autoloop-cron validate`, never refused.
import { basename } from "node:path";
import { resolveAgent } from "../agents/index.js";
import type { PresetConfig } from "./schema.js";
import type { Topology } from "./topology.js";

/** A model set for a command backend: where (`role` index, or the backend), which, for what. */
interface ModelMiss {
  role: { index: number; id: string } | undefined;
  model: string;
  command: string;
}

function modelMisses(config: PresetConfig, topology: Topology): ModelMiss[] {
  const { backend } = config;
  const out: ModelMiss[] = [];
  if (backend.model !== undefined && resolveAgent(backend).modelFlags === undefined)
    out.push({ role: undefined, model: backend.model, command: backend.command });
  for (const [index, role] of topology.roles.entries()) {
    const own = role.backend;
    if (own?.model === undefined) continue;
    const command = own.command ?? own.agent ?? backend.command;
    const agent = own.agent ?? (own.command === undefined ? backend.agent : undefined);
    if (resolveAgent({ command, agent }).modelFlags === undefined)
      out.push({ role: { index, id: role.id }, model: own.model, command });
  }
  return out;
}

export function modelWarnings(config: PresetConfig, topology: Topology): string[] {
  return modelMisses(config, topology).map(({ role, model, command }) =>
    role === undefined
      ? `backend.model = ${JSON.stringify(model)} is not passed to ${basename(command)}, a command backend with no model flag known here; pass one in backend.args`
      : `role[${role.index}].backend_model (role ${JSON.stringify(role.id)}) (the role's ACP model; pass a model flag in backend_args) is not implemented here and is ignored: ${basename(command)} is a command backend`,
  );
}

/** As `autoloop-cron validate` says them (topology-lint.ts's findings; preset.ts loads this file). */
export function modelFindings(preset: { config: PresetConfig; topology: Topology }) {
  return modelMisses(preset.config, preset.topology).map(({ role, model, command }) => ({
    severity: "warning" as const,
    field: role === undefined ? "backend.model" : `role ${JSON.stringify(role.id)}.backend_model`,
    found: `${JSON.stringify(model)} for ${JSON.stringify(command)}, a command backend`,
    expected: `claude, codex or gemini (${role === undefined ? "backend.kind" : "backend_kind"}), which take a model flag, or the model's flag in ${role === undefined ? "backend.args" : "backend_args"}: a command backend is not passed one`,
  }));
}
