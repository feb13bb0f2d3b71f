// A backend overlaid with settings of its own (a role's `backend_*`, the metareview's
// `review.*`): each set key wins over `backend.*`, a list replaces the list.
import type { Preset } from "./preset.js";
import type { RoleBackend } from "./topology.js";

/**
 * The preset with `own` settings over `backend.*`, key by key (a role's, or the metareview's);
 * a command of its own is read by its own name, not by `backend.agent`'s grammar, unless the
 * role's `backend_kind` names the CLI (its command then defaults to that CLI's).
 */
export function withBackend(preset: Preset, own: RoleBackend): Preset {
  const backend = preset.config.backend;
  return {
    ...preset,
    config: {
      ...preset.config,
      backend: {
        ...backend,
        command: own.command ?? own.agent ?? backend.command,
        model: own.model ?? backend.model,
        args: own.args ?? backend.args,
        prompt_mode: own.prompt_mode ?? backend.prompt_mode,
        timeout_ms: own.timeout_ms ?? backend.timeout_ms,
        ...((own.command !== undefined || own.agent !== undefined) && { agent: own.agent }),
      },
    },
  };
}
