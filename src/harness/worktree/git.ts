// git, run with an argv array in a given folder; never through a shell.
import { spawnSync } from "node:child_process";

export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/** Variables that would point git at another repository than `cwd`'s. */
const REPOSITORY_VARIABLES = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"];

export function git(cwd: string, args: readonly string[], env?: NodeJS.ProcessEnv): GitResult {
  const base: NodeJS.ProcessEnv = { ...(env ?? process.env), LC_ALL: "C" };
  for (const name of REPOSITORY_VARIABLES) delete base[name];
  const r = spawnSync("git", args, { cwd, encoding: "utf8", env: base, maxBuffer: 64 << 20 });
  if (r.error !== undefined) {
    const code = (r.error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      stdout: "",
      stderr:
        code === "ENOENT" ? "git is not installed (not found on PATH)" : String(r.error.message),
    };
  }
  return { ok: r.status === 0, stdout: r.stdout, stderr: r.stderr.trim() };
}

/** Runs git and returns its output, or throws with git's own words and `what` it was doing. */
export function gitOrThrow(
  cwd: string,
  args: readonly string[],
  what: string,
  env?: NodeJS.ProcessEnv,
): string {
  const r = git(cwd, args, env);
  if (!r.ok) throw new Error(`${what}: git ${args.join(" ")} failed: ${r.stderr || "no output"}`);
  return r.stdout;
}

/**
 * The identity merge commits are made with: GIT_AUTHOR_* if set, else git's own user.*, else
 * AUTOLOOP_GIT_NAME/EMAIL, else autoloop <autoloop@local>.
 */
export function commitEnv(cwd: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const configured = (key: string) => git(cwd, ["config", key]).stdout.trim() || undefined;
  const name =
    env.GIT_AUTHOR_NAME ?? configured("user.name") ?? env.AUTOLOOP_GIT_NAME ?? "autoloop";
  const email =
    env.GIT_AUTHOR_EMAIL ?? configured("user.email") ?? env.AUTOLOOP_GIT_EMAIL ?? "autoloop@local";
  return {
    ...env,
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: env.GIT_COMMITTER_NAME ?? name,
    GIT_COMMITTER_EMAIL: env.GIT_COMMITTER_EMAIL ?? email,
  };
}

/** The branch checked out in `cwd`, or "" on a detached HEAD. */
export function currentBranch(cwd: string): string {
  return git(cwd, ["symbolic-ref", "--quiet", "--short", "HEAD"]).stdout.trim();
}
