// `backend.run_as`: the user the agent CLI (and all it starts) runs as, so the operating system
// keeps it out of the daemon's state dir and the run's private folder (README, "Running agents
// as another user"). Resolved from /etc/passwd and /etc/group; the harness must be able to
// switch to it (root, or CAP_SETUID, CAP_SETGID and CAP_KILL).
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { UserError, ValidationError } from "../../util/errors.js";

export interface AgentUser {
  /** The key's value as written ("autoloop-agent", "65534:65534"). */
  spec: string;
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** How the harness starts its agents: as whom, and whether through `setpriv`. */
export interface AgentLaunch {
  /** `backend.run_as`; unset, the harness's own user. */
  user: AgentUser | undefined;
  /**
   * A harness that is not root holds its capabilities (CAP_SETUID ...) as ambient ones, which
   * every program it starts would keep, whatever user it runs as: the agent is started through
   * this `setpriv --inh-caps=-all`, which drops them.
   */
  setpriv: string | undefined;
}

interface Account {
  name: string;
  id: number;
  gid: number;
  home: string;
}

/** `name:x:id:gid:...:home:shell` lines (passwd; group lines have no home). */
export function parseAccounts(text: string): Account[] {
  return text.split("\n").flatMap((line) => {
    const f = line.split(":");
    if (f.length < 4 || !/^\d+$/.test(f[2] ?? "")) return [];
    return [{ name: f[0]!, id: Number(f[2]), gid: Number(f[3]) || 0, home: f[5] ?? "/" }];
  });
}

const find = (accounts: Account[], key: string) =>
  accounts.find((a) => (/^\d+$/.test(key) ? a.id === Number(key) : a.name === key));

/** `user[:group]` against the host's accounts: the user, or what is wrong with the value. */
export function resolveRunAs(
  spec: string,
  passwd: Account[],
  groups: Account[],
): AgentUser | { problem: string } {
  const [userKey = "", groupKey, ...rest] = spec.split(":");
  if (userKey === "" || groupKey === "" || rest.length > 0)
    return { problem: 'a user name or uid, with an optional ":group" (e.g. "autoloop-agent")' };
  const user = find(passwd, userKey);
  const group = groupKey === undefined ? undefined : find(groups, groupKey);
  if (groupKey !== undefined && group === undefined && !/^\d+$/.test(groupKey))
    return { problem: `a group of this host (no group ${JSON.stringify(groupKey)} in /etc/group)` };
  const gid = group?.id ?? (groupKey === undefined ? user?.gid : Number(groupKey));
  if (user === undefined && !(/^\d+$/.test(userKey) && gid !== undefined))
    return {
      problem: `a user of this host (no user ${JSON.stringify(userKey)} in /etc/passwd: create it, e.g. useradd --system autoloop-agent, or give a numeric "uid:gid")`,
    };
  const uid = user?.id ?? Number(userKey);
  if (uid === 0 || gid === 0) return { problem: "a user and group other than root" };
  return { spec, name: user?.name ?? userKey, uid, gid: gid!, home: user?.home ?? "/" };
}

const readOr = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : "");

/** The effective and ambient capability sets of this process (`/proc/self/status`). */
function capabilities(): { effective: bigint; ambient: bigint } {
  const status = readOr("/proc/self/status");
  const set = (name: string) =>
    BigInt(`0x${new RegExp(`^${name}:\\s*([0-9a-f]+)$`, "m").exec(status)?.[1] ?? "0"}`);
  return { effective: set("CapEff"), ambient: set("CapAmb") };
}

/** CAP_KILL (5), CAP_SETGID (6), CAP_SETUID (7). */
const NEEDED_CAPS = 0b1110_0000n;

/** The agent's user for `backend.run_as = spec`; `configFile` names the preset in errors. */
export function agentUser(spec: string, configFile: string): AgentUser {
  const found = resolveRunAs(
    spec,
    parseAccounts(readOr("/etc/passwd")),
    parseAccounts(readOr("/etc/group")),
  );
  if ("problem" in found)
    throw new ValidationError([
      {
        file: configFile,
        field: "backend.run_as",
        found: JSON.stringify(spec),
        expected: found.problem,
      },
    ]);
  return found;
}

/** How this harness starts the agents of a preset whose `backend.run_as` is `spec` (or unset). */
export function agentLaunch(spec: string | undefined, configFile: string): AgentLaunch {
  const user = spec === undefined || spec === "" ? undefined : agentUser(spec, configFile);
  const self = process.getuid?.() ?? 0;
  if (self === 0) return { user, setpriv: undefined }; // leaving root drops every capability
  const caps = capabilities();
  if (user !== undefined && (caps.effective & NEEDED_CAPS) !== NEEDED_CAPS)
    throw new UserError(
      `backend.run_as = ${JSON.stringify(spec)} (${configFile}): the harness runs as uid ${self} without CAP_SETUID, CAP_SETGID and CAP_KILL, so it cannot start the agent as ${user.name}; run it as root, or give it those capabilities (systemd: AmbientCapabilities=CAP_SETUID CAP_SETGID CAP_KILL), or remove backend.run_as`,
    );
  if (caps.ambient === 0n) return { user, setpriv: undefined };
  const setpriv = onPath("setpriv");
  if (setpriv === undefined)
    throw new UserError(
      `the harness holds ambient capabilities (CapAmb ${caps.ambient.toString(16)}) that its agents would inherit, and setpriv (util-linux) is not on PATH to drop them: install util-linux, or start the harness without capabilities`,
    );
  return { user, setpriv };
}

function onPath(command: string): string | undefined {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .map((dir) => join(dir, command))
    .find((file) => file.startsWith("/") && existsSync(file));
}

/** What the agent's environment says of its user: its own home unless `backend.env` sets HOME. */
export function agentUserEnv(user: AgentUser): Record<string, string> {
  return { HOME: user.home, USER: user.name, LOGNAME: user.name };
}

/** The spawn of an agent: Node switches uid and gid; setpriv drops inherited capabilities. */
export function launchedAs(
  launch: AgentLaunch | undefined,
  command: string,
  argv: string[],
): { command: string; argv: string[]; ids: { uid: number; gid: number } | undefined } {
  const user = launch?.user;
  const ids = user === undefined ? undefined : { uid: user.uid, gid: user.gid };
  if (launch?.setpriv === undefined) return { command, argv, ids };
  return { command: launch.setpriv, argv: ["--inh-caps=-all", "--", command, ...argv], ids };
}
