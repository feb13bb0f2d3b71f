// The user's own presets (`~/.config/autoloop/presets/`), where `autoloop preset promote`
// installs a single-file preset; `autoloop run <name>` finds one there after the project's
// and the bundled presets, by the same name rule.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { configHome } from "./layers.js";
import { PRESET_NAME } from "./preset.js";

export function userPresetsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(configHome(env), "presets");
}

/** `<name>.toml` or `<name>/autoloops.toml` among the user's presets, else undefined. */
export function userPreset(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!PRESET_NAME.test(name) || name.includes("..")) return undefined;
  const dir = userPresetsDir(env);
  const file = join(dir, `${name}.toml`);
  if (existsSync(file)) return file;
  const folder = join(dir, name);
  return existsSync(join(folder, "autoloops.toml")) ? folder : undefined;
}
