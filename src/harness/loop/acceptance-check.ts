// One acceptance command as a process, as a hook is run (hook-run.ts): `sh -c` of the
// preset's own line, where the agent works, the run's environment without its secrets, its
// own process group, a timeout, no stdin, as the harness's user.
import { runAgent } from "../agents/backend.js";
import { hookArgv } from "../preset/hooks.js";
import type { Run } from "./run-state.js";

export type CheckRun =
  | { kind: "done"; exitCode: number; timedOut: boolean; output: string }
  | { kind: "interrupted" };

/** The public exit code of a command past its timeout (coreutils' `timeout`). */
const TIMED_OUT_EXIT = 124;
/** Output kept while a command runs; its end is what the journal and the next prompt show. */
const MAX_OUTPUT_BYTES = 256 * 1024;

export async function runAcceptanceCheck(
  run: Run,
  command: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
): Promise<CheckRun> {
  const [program, ...args] = hookArgv(command);
  const r = await runAgent({
    command: program!,
    args,
    promptMode: "stdin",
    prompt: "",
    promptPath: "",
    cwd: run.agentDir,
    env,
    timeoutMs,
    killGraceMs: run.preset.config.backend.kill_grace_ms,
    signal: run.opts.signal,
    maxOutputBytes: MAX_OUTPUT_BYTES,
    reaper: run.reaper,
    launch: { user: undefined, setpriv: run.launch.setpriv },
  });
  if (r.kind === "interrupted") return { kind: "interrupted" };
  const timedOut = r.kind === "timed_out";
  const exitCode =
    r.kind === "exited" ? r.exitCode : timedOut ? TIMED_OUT_EXIT : /* not started */ 127;
  const output = r.kind === "spawn_failed" ? `${r.output}${r.error}` : r.output;
  return { kind: "done", exitCode, timedOut, output };
}
