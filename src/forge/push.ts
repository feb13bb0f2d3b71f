// Pushing a run's commit to the schedule's branch on a remote: never over someone else's
// commits (the branch must be where the daemon last left it, or absent), the token handed to
// git in its environment only, never on argv or in a URL written to disk. The commit is first
// fetched from the project into the daemon's own repository, and pushed from there: the
// token's git never reads the project's config.
import { runSealedGit } from "../util/git-run.js";
import type { ForgeKind } from "./forge.js";
import { fetchLocal } from "./own-repo.js";

export type PushOutcome =
  /** The remote branch now holds `sha`. */
  | { kind: "pushed"; sha: string }
  /** It already did (a push whose record a crash lost): nothing was sent. */
  | { kind: "already"; sha: string }
  /** Someone else's commit is on the branch: left alone. */
  | { kind: "moved"; found: string }
  /** `permanent`: refused (the token or its access), not worth trying again unchanged. */
  | { kind: "failed"; detail: string; permanent: boolean };

export interface PushRequest {
  /** The repository holding the run's commit (the project's checkout). */
  repoDir: string;
  /** The schedule's own repository (./own-repo.ts), where `remote` names the recorded URL. */
  ownRepo: string;
  remote: string;
  sha: string;
  /** The branch on the remote, `autoloop/<schedule>`. */
  branch: string;
  /** What the daemon last pushed there; absent: the branch must not exist yet. */
  expected: string | undefined;
  token: string;
  forge: ForgeKind;
}

// The user name each forge takes with a token as the password over HTTPS.
const TOKEN_USER: Record<ForgeKind, string> = {
  github: "x-access-token",
  gitlab: "oauth2",
  gitea: "autoloop",
};

/**
 * What git's sealed environment gets for the token: an HTTP header given through config
 * variables, and no credential helper (none is asked, or told, of the token).
 */
export function pushEnvironment(forge: ForgeKind, token: string): NodeJS.ProcessEnv {
  const basic = Buffer.from(`${TOKEN_USER[forge]}:${token}`).toString("base64");
  return {
    GIT_CONFIG_COUNT: "2",
    GIT_CONFIG_KEY_0: "http.extraHeader",
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
    GIT_CONFIG_KEY_1: "credential.helper",
    GIT_CONFIG_VALUE_1: "",
  };
}

/** A push may take a while over a slow link; past this it has failed. */
const PUSH_TIMEOUT_MS = 300_000;

function gitWith(dir: string, args: string[], env: NodeJS.ProcessEnv) {
  return runSealedGit(dir, args, { env, timeoutMs: PUSH_TIMEOUT_MS });
}

/** Where the daemon's repository keeps the commit it pushes (so it is never collected). */
const PUSHED_REF = "refs/autoloop/pushed";

export async function pushRunCommit(req: PushRequest): Promise<PushOutcome> {
  const env = pushEnvironment(req.forge, req.token);
  const ref = `refs/heads/${req.branch}`;
  const own = req.ownRepo;
  const copied = await fetchLocal(own, req.repoDir, req.sha, PUSHED_REF, {
    timeoutMs: PUSH_TIMEOUT_MS,
  });
  if (!copied.ok)
    return {
      kind: "failed",
      detail: `git fetch ${req.repoDir} ${req.sha}: ${copied.stderr}`,
      permanent: false,
    };
  const listed = await gitWith(own, ["ls-remote", "--", req.remote, ref], env);
  if (!listed.ok) return gitFailed(`git ls-remote ${req.remote}`, listed.stderr);
  const found = listed.stdout.split(/\s/)[0] || undefined;
  if (found === req.sha) return { kind: "already", sha: req.sha };
  if (found !== undefined && found !== req.expected) return { kind: "moved", found };
  // The lease names what was just seen: a push landing in between is refused, not overwritten.
  const lease = `--force-with-lease=${ref}:${found ?? ""}`;
  const pushed = await gitWith(
    own,
    ["push", "--no-verify", lease, "--", req.remote, `${req.sha}:${ref}`],
    env,
  );
  if (pushed.ok) return { kind: "pushed", sha: req.sha };
  if (/stale info|\[rejected\]|fetch first/.test(pushed.stderr)) {
    const again = await gitWith(own, ["ls-remote", "--", req.remote, ref], env);
    return { kind: "moved", found: again.stdout.split(/\s/)[0] || "(unknown)" };
  }
  return gitFailed(`git push ${req.remote}`, pushed.stderr);
}

// What git prints when the server refuses the token or the repository, rather than failing.
const REFUSED =
  /returned error: (401|403|404)|Authentication failed|could not read Username|does not appear to be a git repository|No such remote/i;
// What it prints when the remote's rules decline the commit itself (a file past its size
// limit, a secret found by push protection, a protected branch): pushing it again is declined
// again, and would send the same objects for as long as the delivery is retried.
const DECLINED = /\[remote rejected\].*\((pre-receive hook declined|push declined[^)]*)\)/;

function gitFailed(what: string, stderr: string): PushOutcome {
  return {
    kind: "failed",
    detail: `${what}: ${stderr || "no output"}`,
    permanent: REFUSED.test(stderr) || DECLINED.test(stderr),
  };
}
