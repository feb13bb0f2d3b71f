// `autoloop config show|set|unset|path`: the public autoloop's user config file and preset
// overrides, which `autoloop run` and `resume` layer around a preset (harness/preset/layers.ts).
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { stringify } from "smol-toml";
import {
  type ConfigLayer,
  flatten,
  layeredSets,
  layerProblems,
  presetLayers,
  readLayer,
  repoOverridePath,
  tomlValue,
  userConfigPath,
  userOverridePath,
} from "../harness/preset/layers.js";
import { isRepoCommandKey } from "../harness/preset/repo-override-commands.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import { formatProblem, UserError } from "../util/errors.js";
import { flag, parse, str } from "./common.js";

const HELP = `Usage: autoloop config show [--preset NAME|DIR] [--work-dir DIR] [--json]
       autoloop config set [--user|--repo] [--preset NAME] key=value
       autoloop config unset [--user|--repo] [--preset NAME] key
       autoloop config path [--json]

Settings below a preset's own and above it, as the public autoloop layers them:
  defaults < user config < the preset (autoloops.toml) < user override < repo override < --set
  user config     $AUTOLOOP_CONFIG, else $XDG_CONFIG_HOME/autoloop/config.toml (~/.config/...);
                  a key the preset sets itself wins over it
  user override   ~/.config/autoloop/overrides/<preset>.toml   (set --user --preset NAME)
  repo override   <work dir>/.autoloop/overrides/<preset>.toml (set --repo --preset NAME)
\`autoloop run\`, \`resume\` and \`chain\` steps apply them; only a run started by hand
(--trigger cli) takes the repo override, which lies where runs write, and never its hooks.

show    the resolved settings of a preset (default: ./autoloops.toml if there, else the user
        config over the defaults), each with the layer that set it
set     writes key=value (a TOML value: 250, true, "text", ["a"]) into the user config, or with
        --preset into that preset's override; refused, unwritten, if the result is invalid
unset   removes the key from the same file
path    the user config file and whether it exists

Exit codes: 0 success, 1 a usage mistake or an invalid setting.
`;

type Parsed = ReturnType<typeof parse>;

async function presetPath(p: Parsed): Promise<string | undefined> {
  const given = str(p, "preset");
  if (given === undefined && !existsSync(resolve("autoloops.toml"))) return undefined;
  const { resolvePresetDir } = await import("../harness/preset/preset.js");
  return resolvePresetDir(given ?? ".", process.cwd());
}

const workDir = (p: Parsed) => resolve(str(p, "work-dir") ?? process.cwd());

/** The resolved settings and, per key, the layer that gave it. */
async function resolved(p: Parsed) {
  const { loadPreset } = await import("../harness/preset/preset.js");
  const { presetConfigSchema } = await import("../harness/preset/schema.js");
  const path = await presetPath(p);
  const layers =
    path === undefined ? [readLayer("user", userConfigPath())] : presetLayers(path, workDir(p));
  const { sets, provenance } = layeredSets(layers);
  const config =
    path === undefined
      ? presetConfigSchema.parse(layers[0]!.values ?? {})
      : loadPreset(path, sets).config;
  const sources: Record<string, string> = {};
  for (const [key] of flatten(config as Record<string, unknown>))
    sources[key] = provenance[key] ?? "default";
  return { config, provenance: sources };
}

async function show(p: Parsed): Promise<number> {
  const { config, provenance } = await resolved(p);
  if (flag(p, "json")) {
    process.stdout.write(`${JSON.stringify({ config, provenance }, null, 2)}\n`);
    return 0;
  }
  const lines = ["# Resolved configuration (highest-precedence source shown)"];
  let section = "";
  for (const [key, value] of flatten(config as Record<string, unknown>)) {
    const [head, ...rest] = key.split(".");
    if (head !== section) {
      section = head!;
      lines.push("", `[${section}]`);
    }
    lines.push(`  ${rest.join(".") || head} = ${tomlValue(value)}    # ${provenance[key]}`);
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

/** The file `set` and `unset` change, from --user/--repo/--preset. */
function target(p: Parsed, verb: string): ConfigLayer {
  const preset = str(p, "preset");
  if (flag(p, "user") && flag(p, "repo"))
    throw new UserError(`autoloop config ${verb}: give --user or --repo, not both`, 1);
  if (preset === undefined) {
    if (flag(p, "repo"))
      throw new UserError(
        `autoloop config ${verb}: --repo writes a preset's override; add --preset NAME`,
        1,
      );
    return readLayer("user", userConfigPath());
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(preset) || preset.includes(".."))
    throw new UserError(
      `autoloop config ${verb}: --preset ${JSON.stringify(preset)} is not a preset name (letters, digits, . _ -)`,
      1,
    );
  if (!flag(p, "user") && !flag(p, "repo"))
    throw new UserError(
      `autoloop config ${verb}: with --preset, say which override: --user (yours) or --repo (this work dir's)`,
      1,
    );
  return flag(p, "repo")
    ? readLayer("repo override", repoOverridePath(workDir(p), preset))
    : readLayer("user override", userOverridePath(preset));
}

const KEY = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+$/;

/** Puts (or with `value` undefined, removes) a dotted key in a settings table. */
function edit(values: Record<string, unknown>, key: string, value: unknown): boolean {
  const parts = key.split(".");
  const path = [values];
  for (const part of parts.slice(0, -1)) {
    const node = path.at(-1)!;
    const next = node[part];
    if (typeof next !== "object" || next === null || Array.isArray(next)) {
      if (value === undefined) return false;
      node[part] = {};
    }
    path.push(node[part] as Record<string, unknown>);
  }
  const last = parts.at(-1)!;
  if (value !== undefined) {
    path.at(-1)![last] = value;
    return true;
  }
  if (!Object.hasOwn(path.at(-1)!, last)) return false;
  delete path.at(-1)![last];
  // No empty table is left behind: `[event_loop]` alone would read as a setting.
  for (let i = path.length - 1; i > 0 && Object.keys(path[i]!).length === 0; i--)
    delete path[i - 1]![parts[i - 1]!];
  return true;
}

async function change(p: Parsed, verb: "set" | "unset"): Promise<number> {
  const [arg, extra] = p.positionals;
  const eq = arg?.indexOf("=") ?? -1;
  const key = verb === "set" ? arg?.slice(0, eq) : arg;
  if (
    arg === undefined ||
    extra !== undefined ||
    key === undefined ||
    !KEY.test(key) ||
    (verb === "set" && eq < 1)
  )
    throw new UserError(
      `autoloop config ${verb}: expected ${verb === "set" ? "one key=value" : "one key"} with a dotted key such as event_loop.max_iterations${verb === "set" ? "=250" : ""}, found ${JSON.stringify(p.positionals.join(" "))}`,
      1,
    );
  const layer = target(p, verb);
  if (verb === "set" && layer.name === "repo override" && /^hooks?\./.test(key))
    throw new UserError(
      `autoloop config set: ${key} in the repo override ${layer.file} would never run: a hook runs as you, and that file lies where runs write; set it with --user (your override of the preset) or in the preset`,
      1,
    );
  if (verb === "set" && layer.name === "repo override" && isRepoCommandKey(key))
    throw new UserError(
      `autoloop config set: ${key} in the repo override ${layer.file} would never apply: it chooses what runs as you, and that file lies where runs write; set it with --user (your override of the preset) or in the preset`,
      1,
    );
  const values = structuredClone(layer.values ?? {});
  const { parseSetValue } = await import("../harness/preset/preset.js");
  const value = verb === "set" ? parseSetValue(arg.slice(eq + 1)) : undefined;
  if (!edit(values, key, value)) {
    process.stdout.write(`${key} is not set in ${layer.file}; nothing to do\n`);
    return 0;
  }
  checkValid(layer, values);
  const toml = stringify(values).trimEnd();
  writeFileAtomic(layer.file, toml === "" ? "" : `${toml}\n`);
  process.stdout.write(
    verb === "set"
      ? `set ${key}=${tomlValue(value)} in ${layer.file}\n`
      : `unset ${key} in ${layer.file}\n`,
  );
  return 0;
}

/** A file that would break every run it reaches is not written. */
function checkValid(layer: ConfigLayer, values: Record<string, unknown>): void {
  const problems = layerProblems(layer.file, values);
  if (problems.length === 0) return;
  throw new UserError(
    `autoloop config: not written, the result would be invalid:\n${problems.map(formatProblem).join("\n")}`,
    1,
  );
}

export async function configCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    {
      json: { type: "boolean" },
      user: { type: "boolean" },
      repo: { type: "boolean" },
      preset: { type: "string" },
      "work-dir": { type: "string" },
      explain: { type: "boolean" },
    },
    "autoloop config",
    1,
  );
  const sub = p.positionals.shift();
  if (flag(p, "help") || sub === undefined) {
    process.stdout.write(HELP);
    return flag(p, "help") ? 0 : 1;
  }
  if (sub === "show") return show(p);
  if (sub === "set" || sub === "unset") return change(p, sub);
  if (sub === "path") {
    const path = userConfigPath();
    const exists = existsSync(path);
    process.stdout.write(
      flag(p, "json")
        ? `${JSON.stringify({ path, exists }, null, 2)}\n`
        : `${path}\nexists: ${exists ? "yes" : "no"}\n`,
    );
    return 0;
  }
  throw new UserError(
    `autoloop config: unknown subcommand ${JSON.stringify(sub)}; expected show, set, unset or path`,
    1,
  );
}
