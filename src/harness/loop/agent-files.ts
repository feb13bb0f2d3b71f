// With `backend.run_as`, the run's files its agent writes (through the event tool: the journal,
// tasks and memory; and its own run folder) are shared with the agent's group: folders under
// `.autoloop/` get group rwx, those files group rw (no setgid bit: systemd's RestrictSUIDSGID
// refuses it, and the files the harness writes are made before the agent runs). Only what the harness's user owns is changed; the run's private folder and
// the daemon's state dir are never shared (docs/formats.md, "Who writes what").
import { closeSync, constants, fchmodSync, fchownSync, fstatSync, openSync } from "node:fs";
import { dirname, join } from "node:path";
import { UserError } from "../../util/errors.js";
import { type AgentLaunch, type AgentUser, agentLaunch, agentUserEnv } from "../agents/run-as.js";
import type { Preset } from "../preset/preset.js";
import type { PresetConfig } from "../preset/schema.js";
import type { RunPaths } from "../run-paths.js";

/** What cannot be shared with another user yet: refused before the run starts. */
export function assertShareable(paths: RunPaths, config: PresetConfig, user: AgentUser): void {
  const why =
    config.core.isolation_mode === "worktree"
      ? "worktree isolation (the harness makes the tree as its own user)"
      : dirname(paths.toolPath) !== paths.runDir
        ? `a work dir whose path has spaces or shell characters (${paths.workDir}: the event tool would go to a private temp folder)`
        : undefined;
  if (why !== undefined)
    throw new UserError(
      `backend.run_as = ${JSON.stringify(user.spec)} does not work with ${why}; run without run_as, or change that`,
    );
}

/** Makes the run's shared files and folders writable by the agent's group (created if need be). */
export function shareWithAgent(paths: RunPaths, user: AgentUser): void {
  const autoloopDir = dirname(paths.journalFile);
  for (const dir of [autoloopDir, join(autoloopDir, "runs"), paths.runDir, paths.stateDir])
    share(dir, "dir", user);
  // The prompt file too: rewritten in place every iteration, it keeps the group it gets here
  // (under a 0027 or 0077 umask the agent could not read it otherwise).
  const files = [
    paths.journalFile,
    paths.tasksFile,
    paths.projectMemoryFile,
    paths.runMemoryFile,
    paths.promptPath,
  ];
  for (const file of new Set(files)) share(file, "file", user);
}

const OPEN = {
  dir: constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW,
  // Created when missing, so it is the harness's (and group-writable) whoever writes it first.
  file:
    constants.O_WRONLY |
    constants.O_APPEND |
    constants.O_CREAT |
    constants.O_NOFOLLOW |
    constants.O_NONBLOCK,
};
const GROUP_BITS = { dir: 0o070, file: 0o060 };

function share(path: string, kind: "dir" | "file", user: AgentUser): void {
  let fd: number;
  try {
    fd = openSync(path, OPEN[kind], 0o660);
  } catch {
    return; // a link or a FIFO: the journal's writer and readers refuse it on their own
  }
  try {
    const st = fstatSync(fd);
    const regular = kind === "dir" ? st.isDirectory() : st.isFile();
    if (!regular || st.uid !== process.getuid?.()) return; // the agent's own already
    if (st.gid !== user.gid) chgrp(fd, path, st.uid, user);
    const bits = GROUP_BITS[kind];
    if ((st.mode & bits) !== bits) fchmodSync(fd, (st.mode & 0o7777) | bits);
  } finally {
    closeSync(fd);
  }
}

function chgrp(fd: number, path: string, uid: number, user: AgentUser): void {
  try {
    fchownSync(fd, uid, user.gid);
  } catch (err) {
    throw new UserError(
      `backend.run_as: cannot give ${path} to group ${user.gid} (${(err as Error).message}): add the harness's user to the agent's group (usermod -aG <group> <harness user>), or run the harness as root`,
    );
  }
}

/**
 * `backend.run_as`, checked before anything is written (a wrong user starts nothing), and the
 * environment every agent call starts from: the agent's own HOME when it is another user.
 */
export function agentSetup(
  preset: Preset,
  paths: RunPaths,
  env: NodeJS.ProcessEnv,
): { launch: AgentLaunch; user: AgentUser | undefined; agentBase: NodeJS.ProcessEnv } {
  const launch = agentLaunch(preset.config.backend.run_as, join(preset.dir, "autoloops.toml"));
  const user = launch.user;
  if (user !== undefined) assertShareable(paths, preset.config, user);
  const agentBase = user === undefined ? env : { ...env, ...agentUserEnv(user) };
  return { launch, user, agentBase };
}
