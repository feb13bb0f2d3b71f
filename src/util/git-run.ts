// git run by the daemon's side (fetching, pushing, reading a run's branch): asynchronously,
// so the daemon's thread never waits on it; with an argv array, never through a shell.
import { execa } from "execa";

export interface GitRun {
  ok: boolean;
  stdout: string;
  /** git's own words, trimmed. */
  stderr: string;
  timedOut: boolean;
  exitCode: number | undefined;
}

export interface GitRunOptions {
  /** Added to this process's environment, or the whole of it with `extendEnv: false`. */
  env?: NodeJS.ProcessEnv;
  extendEnv?: boolean;
  timeoutMs?: number;
  maxBuffer?: number;
}

export async function runGit(
  cwd: string,
  args: readonly string[],
  options: GitRunOptions = {},
): Promise<GitRun> {
  const r = await execa("git", args, {
    cwd,
    reject: false,
    stdin: "ignore",
    extendEnv: options.extendEnv ?? true,
    ...(options.env !== undefined && { env: options.env }),
    ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
    ...(options.maxBuffer !== undefined && { maxBuffer: options.maxBuffer }),
  });
  return {
    ok: r.exitCode === 0,
    stdout: String(r.stdout),
    stderr: String(r.stderr).trim(),
    timedOut: r.timedOut,
    exitCode: r.exitCode,
  };
}
