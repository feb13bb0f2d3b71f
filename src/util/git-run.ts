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

/**
 * What every git the daemon runs for a fetch or a push is given on the command line, which
 * outranks any config file: no hook, no fsmonitor, no alternates' command, no `ext::` transport,
 * no automatic gc. A project's config is written by its runs; these keep it from running a
 * command as the daemon.
 */
export const SEALED_CONFIG: readonly string[] = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  // Run with the alternates' path as its argument: `true` lists no refs and does nothing.
  "core.alternateRefsCommand=true",
  "protocol.ext.allow=never",
  "gc.auto=0",
  "maintenance.auto=false",
];

/**
 * The operator's variables a daemon-side git keeps: where it finds programs, ssh keys and
 * agent, which ssh it runs, the certificates it trusts and the proxies it goes through.
 */
const KEPT_VARIABLES = [
  "PATH",
  "HOME",
  "TMPDIR",
  "SSH_AUTH_SOCK",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_SSL_CAINFO",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "http_proxy",
  "https_proxy",
  "HTTPS_PROXY",
  "no_proxy",
  "NO_PROXY",
  "all_proxy",
  "ALL_PROXY",
] as const;

/** Set in the daemon's environment, git reads the operator's `~/.gitconfig` (credential helpers). */
export const GLOBAL_CONFIG_OPT_IN = "AUTOLOOP_GIT_GLOBAL_CONFIG";

/**
 * The whole environment of a daemon-side git: the operator's few variables, no system config,
 * no global config unless the operator opted in, never a prompt.
 */
export function sealedGitEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of KEPT_VARIABLES) if (base[name] !== undefined) env[name] = base[name];
  return {
    ...env,
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    ...(base[GLOBAL_CONFIG_OPT_IN] !== "1" && { GIT_CONFIG_GLOBAL: "/dev/null" }),
    GIT_TERMINAL_PROMPT: "0",
  };
}

export interface SealedGitOptions
  extends Pick<GitRunOptions, "timeoutMs" | "maxBuffer" | "signal"> {
  /** Added to the sealed environment (the token's config variables). */
  env?: NodeJS.ProcessEnv;
  /** More `-c` settings for this one git (`protocol.file.allow=always` for a local fetch). */
  config?: readonly string[];
  /** The daemon's environment the operator's variables come from. */
  base?: NodeJS.ProcessEnv;
}

/** git with the sealed config and environment: what the daemon runs in any repository. */
export function runSealedGit(
  cwd: string,
  args: readonly string[],
  options: SealedGitOptions = {},
): Promise<GitRun> {
  const config = [...SEALED_CONFIG, ...(options.config ?? [])].flatMap((c) => ["-c", c]);
  const { env, config: _, base, ...rest } = options;
  return runGit(cwd, [...config, ...args], {
    ...rest,
    env: { ...sealedGitEnv(base), ...env },
    extendEnv: false,
  });
}
