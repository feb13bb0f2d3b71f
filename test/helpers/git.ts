// Git for tests: a fixed identity, so commits work on a machine without git config.
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export const GIT_ENV = {
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
};

/** Runs git in `cwd` with that identity; returns its output. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, ...GIT_ENV } });
}

/** `dir/work`, a repository with one commit on main, its `origin` the bare `dir/origin.git`. */
export function projectWithOrigin(dir: string): { project: string; origin: string } {
  const origin = join(dir, "origin.git");
  git(dir, "init", "-q", "--bare", "-b", "main", origin);
  const project = join(dir, "work");
  mkdirSync(project, { recursive: true });
  git(project, "init", "-q", "-b", "main");
  git(project, "commit", "-q", "--allow-empty", "-m", "init");
  git(project, "remote", "add", "origin", origin);
  git(project, "push", "-q", "origin", "main");
  return { project, origin };
}
