// `autoloop list`: the presets a run can use here, the project's and the bundled ones; and
// `autoloop init --preset NAME [dir]`: a copy of one in `<dir>/presets/`, to change it.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { loadPreset, PRESET_NAME, resolvePresetDir } from "../harness/preset/preset.js";
import { UserError } from "../util/errors.js";
import { bundledPresetsDir } from "../util/package-root.js";
import { flag, parse, str, table } from "./common.js";

const LIST_HELP = `Usage: autoloop list [--dir DIR] [--json]

Lists the presets \`autoloop run <name>\` finds from DIR (default: here): the project's own in
DIR/presets/, then the bundled ones. A project preset with a bundled one's name is the one
used (the bundled one is marked "shadowed"). One line each: name, where it comes from, how
its agent works (read-only, in its own worktree, or in the checkout), its roles and its job.

Options:
  --dir DIR   the project (or config) folder whose presets/ to list
  --json      machine-readable: name, source, path, job, roles, isolation, publishes, shadowed, problem

Examples:
  autoloop list
  autoloop list --json | jq -r '.[].name'
`;

const INIT_HELP = `Usage: autoloop init --preset NAME [DIR] [--as NEW-NAME] [--force]

Copies a preset (a bundled one, or one of DIR/presets/) to DIR/presets/<NAME> (DIR: here) so
you can change its roles, prompts and settings. A preset there is found first by
\`autoloop run\` and, with DIR the folder of autoloop-cron.toml (presets_dir = "presets"), by
the scheduler: the copy replaces the bundled one of the same name for this project.

Options:
  --preset NAME   the preset to copy (\`autoloop list\` shows them)
  --as NEW-NAME   copy it under another name (keep the bundled one as it is)
  --force         replace a copy that is already there

Examples:
  autoloop init --preset security-review
  autoloop init --preset review /etc/autoloop-cron --as strict-review
`;

export interface PresetRow {
  name: string;
  source: "project" | "bundled";
  path: string;
  /** The job, from the first comment of its autoloops.toml. */
  job: string;
  roles: string[];
  /** How its agent works: its isolation mode, and read-only when it publishes a report. */
  isolation: string;
  publishes: string[];
  /** A bundled preset a project preset of the same name replaces. */
  shadowed: boolean;
  /** Why it does not load, when it does not. */
  problem?: string;
}

function presetFolders(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => PRESET_NAME.test(n) && existsSync(join(dir, n, "autoloops.toml")))
      .sort();
  } catch {
    return [];
  }
}

/**
 * The job, from the comment that opens its autoloops.toml: its first sentence, without the
 * preset's name in front ("# review: review the current branch's changes and…").
 */
function jobOf(dir: string): string {
  const lines = readFileSync(join(dir, "autoloops.toml"), "utf8").split("\n");
  const comment: string[] = [];
  for (const line of lines) {
    const text = /^#\s?(.*)$/.exec(line)?.[1]?.trim();
    if (text === undefined || text === "") break;
    comment.push(text);
  }
  const paragraph = comment.join(" ").replace(/^[a-z0-9._-]+:\s+/, "");
  return /^.*?[.!?](?=\s|$)/.exec(paragraph)?.[0] ?? paragraph;
}

function row(dir: string, name: string, source: PresetRow["source"]): PresetRow {
  const out: PresetRow = {
    name,
    source,
    path: dir,
    job: "",
    roles: [],
    isolation: "",
    publishes: [],
    shadowed: false,
  };
  try {
    out.job = jobOf(dir);
    const preset = loadPreset(dir);
    out.roles = preset.topology.roles.map((r) => r.id);
    out.publishes = preset.config.outputs?.publish ?? [];
    out.isolation = preset.config.core.isolation_mode;
  } catch (err) {
    out.problem = (err as Error).message.split("\n")[0]!;
  }
  return out;
}

/** The presets `autoloop run` finds from `dir`: the project's, then the bundled ones. */
export function presetRows(dir: string): PresetRow[] {
  const local = join(dir, "presets");
  const bundled = bundledPresetsDir();
  const own = resolve(local) === resolve(bundled) ? [] : presetFolders(local);
  const rows = own.map((n) => row(join(local, n), n, "project"));
  for (const n of presetFolders(bundled)) {
    const r = row(join(bundled, n), n, "bundled");
    r.shadowed = own.includes(n);
    rows.push(r);
  }
  return rows;
}

function howItWorks(r: PresetRow): string {
  if (r.problem !== undefined) return "does not load";
  if (r.publishes.length > 0 && r.isolation !== "worktree") return "read-only";
  return r.isolation === "worktree" ? "worktree" : "in the checkout";
}

export async function listCommand(argv: string[]): Promise<number> {
  const p = parse(argv, { dir: { type: "string" }, json: { type: "boolean" } }, "autoloop list");
  if (flag(p, "help")) {
    process.stdout.write(LIST_HELP);
    return 0;
  }
  if (p.positionals.length > 0)
    throw new UserError(
      `autoloop list: unexpected ${JSON.stringify(p.positionals[0])}; see --help`,
    );
  const rows = presetRows(resolve(str(p, "dir") ?? "."));
  if (flag(p, "json")) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const lines = rows.map((r) => [
    r.name,
    r.shadowed ? "bundled (shadowed)" : r.source,
    howItWorks(r),
    r.roles.join(", "),
    r.problem ?? r.job,
  ]);
  process.stdout.write(`${table([["PRESET", "SOURCE", "AGENT", "ROLES", "JOB"], ...lines])}\n`);
  return 0;
}

export async function initCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    { preset: { type: "string" }, as: { type: "string" }, force: { type: "boolean" } },
    "autoloop init",
  );
  if (flag(p, "help")) {
    process.stdout.write(INIT_HELP);
    return 0;
  }
  const name = str(p, "preset");
  if (name === undefined)
    throw new UserError(
      "autoloop init: --preset NAME is required (`autoloop list` shows the presets); see --help",
    );
  if (p.positionals.length > 1)
    throw new UserError(
      `autoloop init: unexpected ${JSON.stringify(p.positionals[1])}; see --help`,
    );
  const dir = resolve(p.positionals[0] ?? ".");
  const as = str(p, "as") ?? name;
  if (!PRESET_NAME.test(as))
    throw new UserError(
      `autoloop init: --as ${JSON.stringify(as)} is not a preset name (lowercase letters, digits, ".", "_" and "-", starting with a letter or digit)`,
    );
  const to = join(dir, "presets", as);
  if (existsSync(to) && !flag(p, "force"))
    throw new UserError(
      `autoloop init: ${to} already exists; change it there, or add --force to replace it with a fresh copy`,
    );
  let from = resolvePresetDir(name, dir);
  // Replacing the project's copy: the fresh one is the bundled preset.
  if (resolve(from) === resolve(to)) from = join(bundledPresetsDir(), name);
  if (!existsSync(join(from, "autoloops.toml")))
    throw new UserError(`autoloop init: no bundled preset ${JSON.stringify(name)} to copy afresh`);
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
  const shown = relative(process.cwd(), to) || ".";
  process.stdout.write(
    `copied ${from} to ${shown}\n` +
      `Change its autoloops.toml, topology.toml and roles/*.md there. \`autoloop run ${as} "objective"\` from ${relative(process.cwd(), dir) || "here"} uses it` +
      `${as === name ? " instead of the bundled one" : ""}; \`autoloop-cron validate\` checks its roles and topology.\n`,
  );
  return 0;
}
