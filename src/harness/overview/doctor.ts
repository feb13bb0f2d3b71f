// `autoloop doctor`'s checks: node, git, the agent CLIs, a preset's agent, the project's
// `.autoloop/` and the operator's private state home, the registry, runs whose process is gone
// and orphaned worktrees. Each check is one function returning a typed result.
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { RegistryView } from "../../journal/registry-view.js";
import { formatProblem } from "../../util/errors.js";
import { AGENT_IDS, type AgentId } from "../agents/index.js";
import { operatorStateHome } from "../control/private-run.js";
import { layerProblems, readLayer, userConfigPath } from "../preset/layers.js";
import { listWorktrees } from "../worktree/worktree.js";
import { autoloopDirOf, isLive, type ProcessCheck } from "./runs.js";

export type DoctorStatus = "ok" | "warn" | "fail";

export interface DoctorCheck {
  name: string;
  status: DoctorStatus;
  detail: string;
}

export interface DoctorInputs {
  workDir: string;
  env: NodeJS.ProcessEnv;
  nodeVersion: string;
  /** The agent of the preset asked about (`--preset`), whose absence fails the check. */
  presetAgent?: { preset: string; agent: AgentId; command: string };
  running: ProcessCheck;
}

const check = (name: string, status: DoctorStatus, detail: string): DoctorCheck => ({
  name,
  status,
  detail,
});

/** Where `command` resolves on PATH (or itself, when it names a file), else undefined. */
export function onPath(command: string, path: string): string | undefined {
  const candidates = command.includes("/")
    ? [command]
    : path
        .split(delimiter)
        .filter((d) => d !== "")
        .map((d) => join(d, command));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {}
  }
  return undefined;
}

function checkNode(version: string): DoctorCheck {
  const major = Number.parseInt(version.replace(/^v/, ""), 10);
  return major >= 20
    ? check("node", "ok", `v${version.replace(/^v/, "")} (20 or later required)`)
    : check(
        "node",
        "fail",
        `v${version} is older than the Node 20 autoloop needs; install Node 20 or later`,
      );
}

function checkGit(i: DoctorInputs): DoctorCheck {
  if (onPath("git", i.env.PATH ?? "") === undefined)
    return check("git", "warn", "git is not on PATH: worktree isolation and pull requests need it");
  return existsSync(join(i.workDir, ".git"))
    ? check("git", "ok", "on PATH (the work dir is a git repository)")
    : check("git", "ok", "on PATH (the work dir has no .git: worktree isolation needs one)");
}

/** The agent CLIs we ship adapters for; a missing one is only a warning unless a preset needs it. */
function checkAgents(i: DoctorInputs): DoctorCheck[] {
  const path = i.env.PATH ?? "";
  const checks = AGENT_IDS.filter((id) => id !== "command").map((id) => {
    const where = onPath(id, path);
    return where === undefined
      ? check(`agent ${id}`, "warn", `${id} is not on PATH (presets using it cannot run here)`)
      : check(`agent ${id}`, "ok", where);
  });
  const want = i.presetAgent;
  if (want !== undefined) {
    const where = onPath(want.command, path);
    checks.push(
      where === undefined
        ? check(
            "backend",
            "fail",
            `preset ${want.preset}: backend.command ${JSON.stringify(want.command)} (${want.agent}) is not on PATH; install it or change backend.command`,
          )
        : check("backend", "ok", `preset ${want.preset}: ${want.agent} at ${where}`),
    );
  }
  return checks;
}

function writableDir(name: string, dir: string, missing: DoctorCheck): DoctorCheck {
  if (!existsSync(dir)) return missing;
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    return check(
      name,
      "fail",
      `${dir} is not writable by this user; fix its owner or mode (chmod u+rwx)`,
    );
  }
  return check(name, "ok", `${dir} is writable`);
}

function checkStateDirs(i: DoctorInputs): DoctorCheck[] {
  const autoloopDir = autoloopDirOf(i.workDir);
  const home = operatorStateHome(i.env);
  return [
    // Each run's private folder below the home is made 0700 by the run itself.
    writableDir(
      "state",
      autoloopDir,
      check("state", "warn", `${autoloopDir} does not exist yet (made by the first run)`),
    ),
    writableDir(
      "operator state",
      home,
      check("operator state", "ok", `${home} does not exist yet (made by the first run)`),
    ),
  ];
}

function checkRegistry(autoloopDir: string, running: ProcessCheck): DoctorCheck[] {
  const journal = join(autoloopDir, "journal.jsonl");
  if (!existsSync(join(autoloopDir, "registry.jsonl")))
    return [check("registry", "ok", "no registry yet (made by the first run)")];
  const view = new RegistryView(journal);
  const runs = [...view.refresh().values()];
  const registry =
    view.skipped > 0
      ? check(
          "registry",
          "warn",
          `${view.skipped} unreadable line(s) in ${view.path} (${runs.length} run(s) readable)`,
        )
      : check("registry", "ok", `${runs.length} run(s) recorded`);
  const live = runs.filter(isLive);
  const gone = live.filter((r) => !running(r));
  const stale =
    gone.length > 0
      ? check(
          "runs",
          "warn",
          `${gone.length} run(s) marked running but their process is gone: ${gone.map((r) => r.run_id).join(", ")}`,
        )
      : check("runs", "ok", `${live.length} run(s) running`);
  return [registry, stale];
}

function checkWorktrees(autoloopDir: string): DoctorCheck {
  const metas = listWorktrees(autoloopDir);
  const orphans = metas.filter(
    (m) => m.status !== "merged" && m.status !== "removed" && !existsSync(m.worktree_path),
  );
  if (orphans.length > 0)
    return check(
      "worktrees",
      "warn",
      `${orphans.length} orphaned worktree(s) of ${metas.length}; run \`autoloop worktree clean\``,
    );
  return check(
    "worktrees",
    "ok",
    metas.length === 0 ? "no worktrees" : `${metas.length} worktree(s), none orphaned`,
  );
}

/** A broken user config file stops every run: it is a failure. */
function checkUserConfig(env: NodeJS.ProcessEnv): DoctorCheck {
  const file = userConfigPath(env);
  try {
    const layer = readLayer("user", file);
    if (layer.values === undefined) return check("config", "ok", `no user config (${file})`);
    const problems = layerProblems(file, layer.values);
    if (problems.length === 0) return check("config", "ok", `${file} is valid`);
    return check("config", "fail", problems.map(formatProblem).join("; "));
  } catch (err) {
    return check("config", "fail", (err as Error).message.replaceAll("\n", "; "));
  }
}

export function doctorChecks(i: DoctorInputs): DoctorCheck[] {
  const autoloopDir = autoloopDirOf(i.workDir);
  const checks = [
    checkNode(i.nodeVersion),
    checkGit(i),
    ...checkAgents(i),
    checkUserConfig(i.env),
    ...checkStateDirs(i),
  ];
  if (existsSync(autoloopDir))
    checks.push(...checkRegistry(autoloopDir, i.running), checkWorktrees(autoloopDir));
  return checks;
}

export function doctorText(workDir: string, checks: readonly DoctorCheck[]): string {
  const width = Math.max(...checks.map((c) => c.name.length));
  const icon = { ok: "✓", warn: "!", fail: "✗" };
  const fails = checks.filter((c) => c.status === "fail").length;
  const warns = checks.filter((c) => c.status === "warn").length;
  return [
    `autoloop doctor — ${workDir}`,
    "",
    ...checks.map((c) => `  ${icon[c.status]} ${c.name.padEnd(width)}  ${c.detail}`),
    "",
    `${fails} failure(s), ${warns} warning(s)`,
  ].join("\n");
}
