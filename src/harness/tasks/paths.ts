// Where a tasks file lives: AUTOLOOP_TASKS_FILE, else the run's state dir, else the
// project's `core.tasks_file` (default `.autoloop/tasks.jsonl`).
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

export const DEFAULT_TASKS_FILE = ".autoloop/tasks.jsonl";

export interface TasksPathInput {
  env: NodeJS.ProcessEnv;
  projectDir: string;
  /** The run's state dir, when inside a run. */
  runStateDir?: string;
  /** `core.tasks_file`, relative to the project dir. */
  configTasksFile?: string;
}

export function resolveTasksFile(input: TasksPathInput): string {
  const fromEnv = input.env.AUTOLOOP_TASKS_FILE;
  if (fromEnv !== undefined && fromEnv !== "") return resolve(fromEnv);
  if (input.runStateDir !== undefined) return join(input.runStateDir, "tasks.jsonl");
  const rel = input.configTasksFile ?? DEFAULT_TASKS_FILE;
  return isAbsolute(rel) ? rel : join(input.projectDir, rel);
}

/** The project dir for CLI use: an explicit argument, else AUTOLOOP_PROJECT_DIR, else ".". */
export function resolveProjectDir(env: NodeJS.ProcessEnv, explicit?: string): string {
  return resolve(explicit ?? (env.AUTOLOOP_PROJECT_DIR || "."));
}

/** `core.tasks_file` from `<projectDir>/autoloops.toml`, when the project has one. */
export async function configuredTasksFile(projectDir: string): Promise<string | undefined> {
  const file = join(projectDir, "autoloops.toml");
  if (!existsSync(file)) return undefined;
  const { parse } = await import("smol-toml");
  try {
    const core = (parse(readFileSync(file, "utf8")) as { core?: { tasks_file?: unknown } }).core;
    return typeof core?.tasks_file === "string" ? core.tasks_file : undefined;
  } catch {
    return undefined; // A broken project config is reported by `autoloop run`, not by task commands.
  }
}
