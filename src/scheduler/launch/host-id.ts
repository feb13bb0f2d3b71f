// Which "host" a process is on, as far as its pids go: two processes with the same host id see
// the same pids in /proc, two with different ones cannot ask each other's pids anything.
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

/**
 * `<host name>:<boot id>:<pid namespace>`. The host name alone is not enough: two pods (or two
 * PID namespaces) on one node may share it, and a rebooted host's pids are new ones. Parts
 * /proc does not give (not Linux) are left out, so such a host is its host name.
 */
export function hostIdOf(parts: {
  hostname: string;
  bootId?: string;
  pidNamespace?: string;
}): string {
  return [parts.hostname, parts.bootId ?? "", parts.pidNamespace ?? ""].join(":");
}

function readOr(read: () => string): string | undefined {
  try {
    return read().trim() || undefined;
  } catch {
    return undefined;
  }
}

let here: string | undefined;

/** This process's host id, read once: none of its parts changes while a process lives. */
export function thisHostId(): string {
  here ??= hostIdOf({
    hostname: hostname(),
    bootId: readOr(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8")),
    // `pid:[4026531836]`: the namespace's inode, the same for every process in it.
    pidNamespace: readOr(() => readlinkSync("/proc/self/ns/pid").replace(/^pid:\[(\d+)\]$/, "$1")),
  });
  return here;
}
