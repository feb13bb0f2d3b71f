// "Hosts" on one machine: a process tree in PID and mount namespaces of its own (`unshare`), so
// /proc on one says nothing of another's processes, as on two machines sharing a volume.
import { spawnSync } from "node:child_process";
import { execa } from "execa";
import { AUTOLOOP_CRON, cleanEnv } from "./cli.js";

export const UNSHARE = ["--pid", "--fork", "--mount-proc", "--kill-child=SIGKILL"];

/** Why namespaced hosts cannot be made here, or undefined when they can (root, util-linux). */
export function whyNoHosts(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root for PID and mount namespaces (CI runs as root)";
  const probe = spawnSync("unshare", [...UNSHARE, "true"]);
  if (probe.error !== undefined) return "needs unshare (util-linux)";
  if (probe.status !== 0) return `unshare cannot make namespaces here: ${probe.stderr}`;
  return undefined;
}

/**
 * `argv` on a host of its own, in `cwd`; its output is collected in `log`. SIGKILL to the
 * returned process is the host going down: everything in it dies with it.
 */
export function onHost(cwd: string, argv: string[]) {
  const host = execa("unshare", [...UNSHARE, ...argv], {
    cwd,
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    all: true,
  });
  const out = { log: "" };
  host.all?.on("data", (chunk: Buffer) => {
    out.log += chunk.toString("utf8");
  });
  return Object.assign(host, { out });
}

/** `autoloop-cron start --config FILE` as argv, for `onHost`. */
export const cronStart = (config: string) => [
  process.execPath,
  AUTOLOOP_CRON,
  "start",
  "--config",
  config,
];
