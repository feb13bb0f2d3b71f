// Where a preset's model cannot go: `backend.model` or a role's `backend_model` for a backend
// whose CLI has no model flag (a plain command), named in a warning at load, never refused.
import { basename } from "node:path";
import { resolveAgent } from "../agents/index.js";
import type { PresetConfig } from "./schema.js";
import type { Topology } from "./topology.js";

export function modelWarnings(config: PresetConfig, topology: Topology): string[] {
  const { backend } = config;
  const out: string[] = [];
  if (backend.model !== undefined && resolveAgent(backend).modelFlags === undefined)
    out.push(
      `backend.model = ${JSON.stringify(backend.model)} is not passed to ${basename(backend.command)}, a command backend with no model flag known here; pass one in backend.args`,
    );
  for (const [i, role] of topology.roles.entries()) {
    const own = role.backend;
    if (own?.model === undefined) continue;
    const command = own.command ?? own.agent ?? backend.command;
    const agent = own.agent ?? (own.command === undefined ? backend.agent : undefined);
    if (resolveAgent({ command, agent }).modelFlags !== undefined) continue;
    out.push(
      `role[${i}].backend_model (role ${JSON.stringify(role.id)}) (the role's ACP model; pass a model flag in backend_args) is not implemented here and is ignored: ${basename(command)} is a command backend`,
    );
  }
  return out;
}
