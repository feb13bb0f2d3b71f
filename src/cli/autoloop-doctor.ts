// `autoloop doctor`: is this machine and this work dir ready to run loops, and is its state
// sound. Exit 2 when a check fails (the environment's problem), as the public autoloop's
// contract has it; warnings exit 0.
import { resolveAgent } from "../harness/agents/index.js";
import { type DoctorInputs, doctorChecks, doctorText } from "../harness/overview/doctor.js";
import { processCheckHere } from "../harness/overview/runs.js";
import { UserError } from "../util/errors.js";
import { printable } from "../util/terminal-text.js";
import { flag, parse, str, workDirOf } from "./common.js";

const HELP = `Usage: autoloop doctor [--work-dir DIR] [--preset NAME|DIR] [--json]

Checks the environment and a work dir's state: node (20 or later), git, the agent CLIs
autoloop has adapters for (claude, codex, gemini; a missing one is a warning), with --preset
that preset's backend.command (missing: a failure), the user config file (one a run would
refuse: a failure; \`autoloop config path\` names it), the work dir's .autoloop/ and the
operator's private state home (writable; the latter not open to others), the registry's
readability, runs marked running whose process is gone, and orphaned worktrees.

Options:
  --work-dir DIR     the project folder holding .autoloop/ (default: $AUTOLOOP_PROJECT_DIR, else .)
  --preset NAME|DIR  also check the agent this preset runs
  --json             {"projectDir", "checks": [{"name", "status": "ok|warn|fail", "detail"}]}

Exit codes: 0 no failure (warnings allowed), 1 a usage mistake, 2 a check failed.
`;

async function presetAgent(name: string | undefined): Promise<DoctorInputs["presetAgent"]> {
  if (name === undefined) return undefined;
  const { loadPreset, resolvePresetDir } = await import("../harness/preset/preset.js");
  const preset = loadPreset(resolvePresetDir(name, process.cwd()));
  const backend = preset.config.backend;
  return { preset: preset.name, agent: resolveAgent(backend).id, command: backend.command };
}

export async function doctorCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    { json: { type: "boolean" }, "work-dir": { type: "string" }, preset: { type: "string" } },
    "autoloop doctor",
    1,
  );
  if (flag(p, "help")) {
    process.stdout.write(HELP);
    return 0;
  }
  const [positional, extra] = p.positionals;
  if (extra !== undefined || (positional !== undefined && str(p, "work-dir") !== undefined))
    throw new UserError("autoloop doctor: give the work dir once (as --work-dir DIR or DIR)", 1);
  if (positional !== undefined) p.values["work-dir"] = positional;
  const workDir = workDirOf(p, "autoloop doctor");
  const checks = doctorChecks({
    workDir,
    env: process.env,
    nodeVersion: process.versions.node,
    presetAgent: await presetAgent(str(p, "preset")),
    running: processCheckHere(),
  });
  if (flag(p, "json"))
    process.stdout.write(`${JSON.stringify({ projectDir: workDir, checks }, null, 2)}\n`);
  else process.stdout.write(`${printable(doctorText(workDir, checks), { multiline: true })}\n`);
  return checks.some((c) => c.status === "fail") ? 2 : 0;
}
