// Starting a run's process: directly (execa, from this process), or through the daemon's
// spawn helper (spawn-helper.ts), which runs the same `startDirect` in a small process.
import { execa } from "execa";
import { readProcessStartTime } from "./identity.js";
import { openOutputFile } from "./output-log.js";

/** What a run's process needs; every field crosses the spawn helper's channel as JSON. */
export interface StartRequest {
  /** The run the process is for (the helper's recovery finds it by this id). */
  runId: string;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** stdout and stderr go to this file, appended (no pipe to the daemon). */
  outputPath: string;
}

/** How the process ended; all absent when nobody could tell (its parent died meanwhile). */
export interface ExitResult {
  exitCode?: number;
  signal?: string;
  /** Why it could not be spawned (then there is no pid). */
  failure?: string;
}

export interface StartedProcess {
  /** Undefined when it could not be spawned; `exit` then carries the failure. */
  pid: number | undefined;
  /** Its /proc start time, read where it was spawned (recognises it after a pid reuse). */
  startTime: string | undefined;
  exit: Promise<ExitResult>;
}

/** Resolves once the pid is known; rejects when the output log cannot be opened. */
export type ProcessStarter = (request: StartRequest) => Promise<StartedProcess>;

/**
 * Spawns from this process: the run leads its own process group (timeouts and stops reach
 * every descendant), survives this process (it is adopted after a restart), and writes its
 * output to the log's own descriptor, so it writes on whatever happens to its parent.
 */
export function startDirect(request: StartRequest): StartedProcess {
  const output = openOutputFile(request.outputPath);
  let child: ReturnType<typeof execa>;
  try {
    child = execa(request.file, request.args, {
      cwd: request.cwd,
      env: request.env,
      extendEnv: false,
      detached: true,
      cleanup: false,
      stdin: "ignore",
      // execa takes any descriptor at run time; its types only spell out 3 to 9.
      stdout: output.fd as 3,
      stderr: output.fd as 3,
      reject: false,
    });
  } finally {
    output.close(); // the child has its own copy
  }
  const pid = child.pid;
  const exit = child.then(
    (r): ExitResult =>
      pid === undefined
        ? { failure: r.shortMessage ?? "spawn failed" }
        : {
            ...(r.exitCode !== undefined && { exitCode: r.exitCode }),
            ...(r.signal !== undefined && { signal: r.signal }),
          },
  );
  return { pid, startTime: pid === undefined ? undefined : readProcessStartTime(pid), exit };
}

export const startDirectly: ProcessStarter = async (request) => startDirect(request);
