// `autoloop preset promote <source.toml> <name>`: a single-file preset, checked, installed
// among the user's presets so `autoloop run <name>` finds it (the public autoloop's verb).
import { constants, copyFileSync, existsSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { UserError } from "../util/errors.js";
import { flag, parse } from "./common.js";

const HELP = `Usage: autoloop preset promote <source.toml> <name>

Checks a single-file preset (config, topology and role prompts in one .toml) as \`autoloop
run\` would load it, refuses it when its topology has an error (a completion no role can
reach, an event nobody handles), and copies it to ~/.config/autoloop/presets/<name>.toml
($XDG_CONFIG_HOME/autoloop/presets/). \`autoloop run <name>\` then finds it after the
project's presets/ and the bundled ones. An existing preset of that name is never replaced.

Exit codes: 0 promoted, 1 a usage mistake, an invalid preset or a name already taken.
`;

async function promote(source: string, name: string): Promise<number> {
  const { loadPreset, PRESET_NAME } = await import("../harness/preset/preset.js");
  const { topologyFindings } = await import("../harness/preset/topology-lint.js");
  const { userPresetsDir } = await import("../harness/preset/user-presets.js");
  if (!PRESET_NAME.test(name) || name.includes(".."))
    throw new UserError(
      `autoloop preset promote: name ${JSON.stringify(name)} is not a preset name (lower-case letters, digits, . _ -)`,
      1,
    );
  const file = resolve(source);
  if (!file.endsWith(".toml") || !existsSync(file))
    throw new UserError(`autoloop preset promote: ${file} is not a single-file preset (.toml)`, 1);
  let preset: Awaited<ReturnType<typeof loadPreset>>;
  try {
    preset = loadPreset(file);
  } catch (err) {
    if (err instanceof UserError) throw new UserError(err.message, 1);
    throw err;
  }
  const { spawnFindings } = await import("../harness/preset/spawn-presets.js");
  const findings = [...topologyFindings(preset), ...spawnFindings(preset, undefined, process.env)];
  for (const f of findings.filter((x) => x.severity === "warning"))
    process.stderr.write(
      `autoloop preset promote: warning: ${f.field}: ${f.found}; expected ${f.expected}\n`,
    );
  const errors = findings.filter((x) => x.severity === "error");
  if (errors.length > 0)
    throw new UserError(
      `autoloop preset promote: ${file} has topology errors; not promoting:\n${errors.map((f) => `  - ${f.field}: found ${f.found}; expected ${f.expected}`).join("\n")}`,
      1,
    );
  const dir = userPresetsDir();
  const dest = resolve(dir, `${name}.toml`);
  mkdirSync(dir, { recursive: true });
  try {
    copyFileSync(file, dest, constants.COPYFILE_EXCL);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    throw new UserError(
      `autoloop preset promote: preset ${name} already exists at ${dest}; choose another name or remove that file`,
      1,
    );
  }
  process.stdout.write(
    `promoted ${file} -> ${dest}\nrun it with: autoloop run ${name} "<objective>"\n`,
  );
  return 0;
}

export async function presetCommand(argv: string[]): Promise<number> {
  const p = parse(argv, {}, "autoloop preset", 1);
  const [sub, source, name, extra] = p.positionals;
  if (flag(p, "help") || sub === undefined) {
    process.stdout.write(HELP);
    return flag(p, "help") ? 0 : 1;
  }
  if (sub !== "promote")
    throw new UserError(
      `autoloop preset: unknown subcommand ${JSON.stringify(sub)}; expected promote`,
      1,
    );
  if (source === undefined || name === undefined || extra !== undefined)
    throw new UserError(
      "autoloop preset promote: expected <source.toml> <name>; see `autoloop preset --help`",
      1,
    );
  return promote(source, name);
}
