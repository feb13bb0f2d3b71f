// The repo override's keys that choose what runs as the person who starts a run by hand, or
// with what rights (an agent's command, args, env, user): left out, as its hooks are, since the
// project's `.autoloop/` is the runs' to write (docs/formats.md, "Who writes what").
/** A config layer (layers.ts), as much of it as this reads. */
interface Layer {
  name: string;
  file: string;
  values: Record<string, unknown> | undefined;
}

/** A run that wrote these would have its next run by hand run them, as a hook's. */
const COMMAND_KEYS = [
  "backend.command",
  "backend.args",
  "backend.agent_args",
  "backend.env",
  "backend.run_as",
  "review.command",
  "review.args",
] as const;
/** A role's own agent command (`[[role]]`), which the repo override would set by `role`. */
const ROLE_COMMAND_KEYS = ["backend_command", "backend_args"];

const table = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;

/** The command keys a repo override sets, dotted (`role.backend_command` for any role's). */
function commandKeysOf(values: Record<string, unknown>): string[] {
  const found: string[] = COMMAND_KEYS.filter((dotted) => {
    const [section, key] = dotted.split(".") as [string, string];
    return table(values[section])?.[key] !== undefined;
  });
  const roles = Array.isArray(values.role) ? values.role : [];
  for (const key of ROLE_COMMAND_KEYS)
    if (roles.some((r) => table(r)?.[key] !== undefined)) found.push(`role.${key}`);
  return found;
}

export function repoCommandsNote(layer: Layer): string[] {
  const keys = commandKeysOf(layer.values!);
  return keys.length === 0
    ? []
    : [
        `${keys.join(", ")} of the repo override ${layer.file} not applied: they choose what runs as you, and the project's .autoloop/ is the runs' to write; set them in the preset or your own override (autoloop config path)`,
      ];
}

/** The repo override's settings without its command keys. */
export function withoutCommands<L extends Layer>(layer: L): L {
  if (layer.name !== "repo override" || layer.values === undefined) return layer;
  const values: Record<string, unknown> = { ...layer.values };
  for (const dotted of COMMAND_KEYS) {
    const [section, key] = dotted.split(".") as [string, string];
    const t = table(values[section]);
    if (t !== undefined && key in t) {
      const { [key]: _dropped, ...rest } = t;
      values[section] = rest;
    }
  }
  if (Array.isArray(values.role))
    values.role = values.role.map((r) => {
      const t = table(r);
      return t === undefined
        ? r
        : Object.fromEntries(Object.entries(t).filter(([k]) => !ROLE_COMMAND_KEYS.includes(k)));
    });
  return { ...layer, values };
}

/** Whether a dotted key (`autoloop config set --repo`) is one the repo override never applies. */
export function isRepoCommandKey(key: string): boolean {
  return (
    (COMMAND_KEYS as readonly string[]).some((k) => key === k || key.startsWith(`${k}.`)) ||
    /^role\.(\d+\.)?backend_(command|args)$/.test(key)
  );
}
