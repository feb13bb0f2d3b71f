// The files of one run, relative to its work dir (docs/formats.md, "Where things live").
import { existsSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { projectMemoryFile } from "./memory/paths.js";
import type { PresetConfig } from "./preset/schema.js";
import { resolveTasksFile } from "./tasks/paths.js";

export interface RunPaths {
  workDir: string;
  journalFile: string;
  registryFile: string;
  /** `.autoloop/runs/<run-id>/`: the run's own files (tasks, event tool, prompt). */
  runDir: string;
  /** Where loop-owned working files go: the run dir, or `.autoloop/` in shared isolation. */
  stateDir: string;
  tasksFile: string;
  /** The event tool handed to the agent. */
  toolPath: string;
  promptPath: string;
  /** The project's memory, and the run's own. */
  projectMemoryFile: string;
  runMemoryFile: string;
}

export function runPaths(
  workDir: string,
  runId: string,
  config: PresetConfig,
  env: NodeJS.ProcessEnv,
): RunPaths {
  const root = resolve(workDir);
  const journalFile = resolve(root, config.core.journal_file);
  const autoloopDir = dirname(journalFile);
  const runDir = join(autoloopDir, "runs", runId);
  return {
    workDir: root,
    journalFile,
    registryFile: join(autoloopDir, "registry.jsonl"),
    runDir,
    stateDir: config.core.isolation_mode === "shared" ? autoloopDir : runDir,
    tasksFile: resolveTasksFile({ env, projectDir: root, runStateDir: runDir }),
    toolPath: eventToolPath(runDir, runId, env),
    promptPath: join(runDir, "active-prompt.md"),
    projectMemoryFile: projectMemoryFile(env, root, config.core.memory_file),
    runMemoryFile: join(
      config.core.isolation_mode === "shared" ? autoloopDir : runDir,
      "memory.jsonl",
    ),
  };
}

/** A path an agent can type as is and a permission rule can match: no quoting, no expansion. */
const LITERAL_PATH = /^[A-Za-z0-9_./+-]+$/;

/**
 * Where the event tool goes: the run's own folder, or, when that path holds a space or any
 * byte a shell or a permission rule would treat specially, a private folder under the
 * system's temp dir (`autoloop-tools-<uid>/<run-id>/`).
 */
function eventToolPath(runDir: string, runId: string, env: NodeJS.ProcessEnv): string {
  const own = join(runDir, "autoloops");
  if (LITERAL_PATH.test(own)) return own;
  const base = [env.TMPDIR, "/tmp"].find((d) => d !== undefined && LITERAL_PATH.test(d)) ?? "/tmp";
  const uid = process.getuid?.() ?? 0;
  return join(base, `autoloop-tools-${uid}`, runId, "autoloops");
}

const IGNORE_ALL =
  "# Written by autoloop: the harness's state is never part of the project's commits.\n*\n";

/**
 * Makes git ignore the harness's own folder (`.autoloop/`), so an agent's `git add -A` never
 * commits journals, prompts or tasks. A `.gitignore` inside that folder leaves the project's
 * own `.gitignore` alone; one the user wrote is kept.
 */
export function ignoreStateDir(paths: RunPaths): void {
  const stateRoot = dirname(paths.journalFile);
  const inside = relative(paths.workDir, stateRoot);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) return;
  const file = join(stateRoot, ".gitignore");
  if (existsSync(file)) return;
  try {
    writeFileSync(file, IGNORE_ALL, { flag: "wx" });
  } catch {
    // Written by a concurrent run, or a read-only state dir: nothing to add either way.
  }
}
