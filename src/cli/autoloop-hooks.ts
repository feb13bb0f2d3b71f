// `autoloop hooks list|show|validate|clear-suspend`: the public autoloop's view of a preset's
// lifecycle hooks, and the operator's way to drop a run's suspend state.
import { join, resolve } from "node:path";
import { findRun } from "../harness/control/operator-requests.js";
import { privateRunPaths } from "../harness/control/private-run.js";
import { clearSuspendState, readSuspendState } from "../harness/control/suspend-state.js";
import { HOOK_PHASES, type HookSpec } from "../harness/preset/hooks.js";
import { UserError } from "../util/errors.js";
import { printable } from "../util/terminal-text.js";
import { flag, parse, workDirOf } from "./common.js";

const HELP = `Usage: autoloop hooks list [preset] [--work-dir DIR] [--json]
       autoloop hooks show <phase> [preset] [--work-dir DIR] [--json]
       autoloop hooks validate [preset] [--json]
       autoloop hooks clear-suspend <run-id> [--work-dir DIR] [--json]

Lifecycle hooks: commands a preset runs around its runs and iterations ([hooks] and
[[hook]] in autoloops.toml). The preset is a name or folder as for \`autoloop run\`
(default: the current folder's autoloops.toml); list and show include the hooks of your
user config and user override, as a run started by hand gets them (never the repo
override's: that file lies where runs write).

list            every hook, by phase
show <phase>    one phase's hooks (phases: ${HOOK_PHASES.join(", ")})
validate        the preset's [hooks] and [[hook]] entries; errors exit 1, and warnings name
                what a hook here cannot do (post_run on_error, emit phases, mutate, a
                command in the work dir)
clear-suspend   drop the suspend state a hook with on_error = "suspend" left for a run
                (\`autoloop resume\` clears it too, going on where it says)

Options:
  --work-dir DIR  the project folder holding .autoloop/ (default: $AUTOLOOP_PROJECT_DIR, else .)
  --json          the public autoloop's keys: {"hooks"}, {"phase","hooks"}, {"valid","errors"},
                  {"clearedSuspend","clearedResumeRequest","previousState"}

Exit codes: 0 success, 1 a usage mistake, an unknown phase, an invalid hook or no such run.
`;

type Parsed = ReturnType<typeof parse>;

export async function hooksCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    { json: { type: "boolean" }, "work-dir": { type: "string" } },
    "autoloop hooks",
    1,
  );
  const [sub, ...rest] = p.positionals;
  if (flag(p, "help") || sub === undefined) {
    process.stdout.write(HELP);
    return flag(p, "help") ? 0 : 1;
  }
  if (sub === "list") return list(p, rest[0]);
  if (sub === "show") return show(p, rest[0], rest[1]);
  if (sub === "validate") return validate(p, rest[0]);
  if (sub === "clear-suspend") return clearSuspend(p, rest[0]);
  throw new UserError(
    `autoloop hooks: unknown subcommand ${JSON.stringify(sub)}; expected list, show, validate or clear-suspend (see autoloop hooks --help)`,
    1,
  );
}

function print(p: Parsed, value: unknown, text: () => string): void {
  const out = flag(p, "json") ? JSON.stringify(value, null, 2) : text();
  process.stdout.write(`${printable(out, { multiline: true })}\n`);
}

/** The preset's hooks with the layers a run started by hand gets. */
async function specsOf(p: Parsed, preset: string | undefined): Promise<HookSpec[]> {
  const { loadPreset, resolvePresetDir } = await import("../harness/preset/preset.js");
  const { runLayers } = await import("../harness/preset/layers.js");
  const { hookSpecs } = await import("../harness/preset/hooks.js");
  try {
    const dir = resolvePresetDir(preset ?? ".", process.cwd());
    const loaded = loadPreset(dir, runLayers(dir, workDirOf(p, "autoloop hooks"), "cli").sets);
    return hookSpecs(loaded.config);
  } catch (err) {
    if (err instanceof UserError) throw new UserError(err.message, 1);
    throw err;
  }
}

function specLine(s: HookSpec): string {
  return `command=${JSON.stringify(s.command)} on_error=${s.onError} mutate=${s.mutate} source=${s.source} timeout_ms=${s.timeoutMs}`;
}

async function list(p: Parsed, preset: string | undefined): Promise<number> {
  const specs = await specsOf(p, preset);
  print(p, { hooks: specs }, () => {
    if (specs.length === 0) return "No hooks configured.";
    const lines = ["Configured hooks:"];
    for (const phase of HOOK_PHASES) {
      const of = specs.filter((s) => s.phase === phase);
      if (of.length > 0) lines.push(`  ${phase}:`, ...of.map((s) => `    - ${specLine(s)}`));
    }
    return lines.join("\n");
  });
  return 0;
}

async function show(p: Parsed, phase: string | undefined, preset: string | undefined) {
  if (phase === undefined)
    throw new UserError(`autoloop hooks show: give a phase: one of ${HOOK_PHASES.join(", ")}`, 1);
  if (!(HOOK_PHASES as readonly string[]).includes(phase))
    throw new UserError(
      `autoloop hooks show: unknown phase ${JSON.stringify(phase)}; expected one of: ${HOOK_PHASES.join(", ")}`,
      1,
    );
  const specs = (await specsOf(p, preset)).filter((s) => s.phase === phase);
  print(p, { phase, hooks: specs }, () =>
    specs.length === 0
      ? `No hooks configured for phase \`${phase}\`.`
      : [`Hooks for phase \`${phase}\`:`, ...specs.map((s) => `  ${specLine(s)}`)].join("\n"),
  );
  return 0;
}

async function validate(p: Parsed, preset: string | undefined): Promise<number> {
  const { resolvePresetDir, readToml, loadPreset } = await import("../harness/preset/preset.js");
  const { projectFileOf } = await import("../harness/preset/layers.js");
  const { hookProblems } = await import("../harness/preset/hooks.js");
  const { hookFindings } = await import("../harness/preset/hooks-lint.js");
  let file = "";
  let errors: ReturnType<typeof hookProblems>;
  let warnings: string[] = [];
  try {
    const dir = resolvePresetDir(preset ?? ".", process.cwd());
    file = projectFileOf(dir);
    errors = hookProblems(file, readToml(file));
    if (errors.length === 0)
      warnings = hookFindings(loadPreset(dir).config).map(
        (f) => `${f.field}: found ${f.found}; expected ${f.expected}`,
      );
  } catch (err) {
    if (err instanceof UserError) throw new UserError(err.message, 1);
    throw err;
  }
  print(p, { valid: errors.length === 0, errors, warnings }, () => {
    const lines =
      errors.length === 0
        ? [`Hooks config is valid (${file}).`]
        : [
            `Found ${errors.length} hook config error(s):`,
            ...errors.map((e) => `  - ${e.message}`),
          ];
    return [...lines, ...warnings.map((w) => `  warning: ${w}`)].join("\n");
  });
  return errors.length === 0 ? 0 : 1;
}

async function clearSuspend(p: Parsed, partial: string | undefined): Promise<number> {
  if (partial === undefined)
    throw new UserError(
      "autoloop hooks clear-suspend: give the run id (a unique prefix will do)",
      1,
    );
  const workDir = workDirOf(p, "autoloop hooks clear-suspend");
  const ref = findRun(join(resolve(workDir), ".autoloop", "journal.jsonl"), partial);
  const paths = privateRunPaths(ref.runId, ref.journalFile);
  const previousState = readSuspendState(paths) ?? null;
  const clearedSuspend = clearSuspendState(paths);
  // The public autoloop's resume-requested signal has no counterpart here: a suspended run
  // has stopped, and goes on only by `autoloop resume`.
  const value = { clearedSuspend, clearedResumeRequest: false, previousState };
  print(p, value, () =>
    clearedSuspend
      ? `Cleared suspend state of run ${ref.runId} (phase=${previousState?.phase ?? "unknown"}, reason=${previousState?.reason ?? "unknown"}).`
      : `No suspend state to clear for run ${ref.runId}.`,
  );
  return 0;
}
