// The daemon's own bare repository of a schedule (`<state_dir>/git/<schedule>.git`): every
// fetch and push of the daemon's runs in it, with the remote's URL recorded there, never in the
// project, whose `.git/config` (remotes, hooks, proxies, helpers) its runs can write.
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { runSealedGit, type SealedGitOptions } from "../util/git-run.js";

export type OwnRepo =
  /** `notice`: what the operator should know (the project's URL moved; the record did not). */
  { kind: "ready"; dir: string; url: string; notice?: string } | { kind: "failed"; detail: string };

export interface OwnRepoRequest {
  /** `<state_dir>/git`. */
  gitDir: string;
  schedule: string;
  projectDir: string;
  remote: string;
}

/** Where a schedule's own repository is (schedule names are checked to be path-safe). */
export function ownRepoPath(gitDir: string, schedule: string): string {
  return join(gitDir, `${schedule}.git`);
}

/** The URL in `remote.<name>.url` of a repository's own config file, undefined when unset. */
async function configuredUrl(dir: string, remote: string): Promise<string | undefined> {
  const r = await runSealedGit(dir, ["config", "--local", "--get", `remote.${remote}.url`]);
  return r.ok && r.stdout.trim() !== "" ? r.stdout.trim() : undefined;
}

/**
 * A remote's URL as the daemon's repository must hold it: a relative path (`../origin.git`) is
 * the project's, so it is made absolute from there; URLs, `host:path` and absolute paths stay.
 */
export function urlFrom(projectDir: string, url: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || isAbsolute(url) || /^[^/]+:/.test(url)) return url;
  return resolve(projectDir, url);
}

/** A URL as logs may show it: without a user or password. */
export function shownUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1");
}

async function created(dir: string, projectDir: string): Promise<string | undefined> {
  if (existsSync(join(dir, "HEAD"))) return undefined;
  mkdirSync(dirname(dirname(dir)), { recursive: true });
  mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
  // No template: no sample hooks, nothing the daemon did not write.
  const r = await runSealedGit(dirname(dir), ["init", "--quiet", "--bare", "--template=", dir]);
  if (!r.ok) return `git init --bare ${dir} failed: ${r.stderr}`;
  chmodSync(dirname(dir), 0o700);
  chmodSync(dir, 0o700);
  // Seeded with the project's history, by path: the first fetch from the remote then brings
  // what is new, not all of it (a large repository's would outlast the fetch's time limit).
  // Data only; an empty project has none, and the fetches to come bring what they need.
  await fetchLocal(dir, projectDir, "HEAD", "refs/autoloop/seed");
  return undefined;
}

/**
 * The schedule's own repository, created on first use, with the URL of `remote` recorded in it
 * then (the daemon records it when the schedule loads, before any run): a URL the project's
 * config names later is never followed (a run can write that config), only told in `notice`.
 */
export async function openOwnRepo(req: OwnRepoRequest): Promise<OwnRepo> {
  const dir = ownRepoPath(req.gitDir, req.schedule);
  const failed = await created(dir, req.projectDir);
  if (failed !== undefined) return { kind: "failed", detail: failed };
  const recorded = await configuredUrl(dir, req.remote);
  const named = await configuredUrl(req.projectDir, req.remote);
  const current = named === undefined ? undefined : urlFrom(req.projectDir, named);
  if (recorded !== undefined && (current === undefined || current === recorded))
    return { kind: "ready", dir, url: recorded };
  if (recorded !== undefined)
    return {
      kind: "ready",
      dir,
      url: recorded,
      notice: `remote ${req.remote} of ${req.projectDir} now names ${shownUrl(current!)}; the daemon keeps ${shownUrl(recorded)}, recorded when schedule ${req.schedule} first used it, as runs can write the project's config: if the change is yours, run git -C ${dir} remote set-url ${req.remote} <url>`,
    };
  if (current === undefined)
    return {
      kind: "failed",
      detail: `remote ${req.remote} of ${req.projectDir} has no URL: add it (git remote add ${req.remote} <url>)`,
    };
  const set = await runSealedGit(dir, ["config", "--local", `remote.${req.remote}.url`, current]);
  if (!set.ok) return { kind: "failed", detail: `recording remote ${req.remote}: ${set.stderr}` };
  return { kind: "ready", dir, url: current };
}

/** The only transport a fetch between the project and the daemon's repository may use. */
const LOCAL_ONLY = ["protocol.allow=never", "protocol.file.allow=always"];

/**
 * `git fetch` of one commit (or `HEAD`) from the repository at `from` into `ref` of the one at
 * `cwd`, by path: `git-upload-pack` named, so neither side's config picks the program, and no transport
 * but a local one, so a URL rewrite in either config leads nowhere else.
 */
export async function fetchLocal(
  cwd: string,
  from: string,
  sha: string,
  ref: string,
  options: Omit<SealedGitOptions, "config" | "env"> = {},
) {
  const args = [
    "fetch",
    "--quiet",
    "--no-tags",
    "--no-recurse-submodules",
    "--no-write-fetch-head",
  ];
  return runSealedGit(
    cwd,
    [...args, "--upload-pack=git-upload-pack", "--", from, `+${sha}:${ref}`],
    { ...options, config: LOCAL_ONLY },
  );
}
