// git run by the daemon's side (fetching, pushing, reading a run's branch): asynchronously,
// so the daemon's thread never waits on it; with an argv array, never through a shell.
import { execa } from "execa";
import { signalGroup } from "./process.js";

export interface GitRun {
  ok: boolean;
  stdout: string;
  /** git's own words, trimmed. */
  stderr: string;
  timedOut: boolean;
  /** Stopped through `signal` (git was killed). */
  canceled: boolean;
  exitCode: number | undefined;
}

export interface GitRunOptions {
  /** Added to this process's environment, or the whole of it with `extendEnv: false`. */
  env?: NodeJS.ProcessEnv;
  extendEnv?: boolean;
  timeoutMs?: number;
  maxBuffer?: number;
  /**
   * Aborting it kills git and its helpers (the group git then leads): a run stopped while the
   * daemon fetches for it waits for nothing.
   */
  signal?: AbortSignal;
}

export async function runGit(
  cwd: string,
  args: readonly string[],
  options: GitRunOptions = {},
): Promise<GitRun> {
  const { signal } = options;
  if (signal?.aborted)
    return {
      ok: false,
      stdout: "",
      stderr: "",
      timedOut: false,
      canceled: true,
      exitCode: undefined,
    };
  const child = execa("git", args, {
    cwd,
    reject: false,
    stdin: "ignore",
    extendEnv: options.extendEnv ?? true,
    ...(options.env !== undefined && { env: options.env }),
    ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
    ...(options.maxBuffer !== undefined && { maxBuffer: options.maxBuffer }),
    // git's transport helper (git-remote-https, ssh) holds the connection: killing git alone
    // would leave it waiting on the remote, so a stoppable git leads its own group.
    ...(signal !== undefined && { detached: true }),
  });
  const killGroup = () => {
    if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
  };
  signal?.addEventListener("abort", killGroup, { once: true });
  const r = await child;
  signal?.removeEventListener("abort", killGroup);
  // A timed-out git's helpers go with it too.
  if (signal !== undefined && r.timedOut) killGroup();
  return {
    ok: r.exitCode === 0,
    stdout: String(r.stdout),
    stderr: String(r.stderr).trim(),
    timedOut: r.timedOut,
    canceled: signal?.aborted === true && r.exitCode !== 0,
    exitCode: r.exitCode,
  };
}
