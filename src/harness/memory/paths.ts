// Where memory lives: the project's file ($AUTOLOOP_MEMORY_FILE, else core.memory_file under
// the project, default .autoloop/memory.jsonl) and, inside a run, the run's own file.
import { isAbsolute, join, resolve } from "node:path";

export const DEFAULT_MEMORY_FILE = ".autoloop/memory.jsonl";

export function projectMemoryFile(
  env: NodeJS.ProcessEnv,
  projectDir: string,
  configured: string = DEFAULT_MEMORY_FILE,
): string {
  const fromEnv = env.AUTOLOOP_MEMORY_FILE;
  if (fromEnv !== undefined && fromEnv !== "") return resolve(fromEnv);
  return isAbsolute(configured) ? configured : join(projectDir, configured);
}

/** `<state dir>/memory.jsonl`, or undefined outside a run. */
export function runMemoryFile(env: NodeJS.ProcessEnv): string | undefined {
  const stateDir = env.AUTOLOOP_STATE_DIR;
  return stateDir === undefined || stateDir === "" ? undefined : join(stateDir, "memory.jsonl");
}
