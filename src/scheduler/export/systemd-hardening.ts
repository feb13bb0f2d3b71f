// The sandboxing every autoloop-cron system unit gets: deploy/systemd/autoloop-cron.service
// carries the same lines (a test keeps them in step), and generated units reuse them.

/**
 * Settings that leave Node and the agent CLIs it spawns working. Left out on purpose:
 * MemoryDenyWriteExecute (V8's JIT needs W+X pages), RestrictNamespaces and SystemCallFilter
 * (agent CLIs sandbox their tools with bubblewrap, namespaces, seccomp or landlock),
 * ProcSubset=pid (Node reads /proc/cpuinfo and /proc/stat).
 */
export const HARDENING: readonly string[] = [
  "NoNewPrivileges=yes",
  "PrivateTmp=yes",
  "PrivateDevices=yes",
  "ProtectSystem=strict",
  "ProtectKernelTunables=yes",
  "ProtectKernelModules=yes",
  "ProtectKernelLogs=yes",
  "ProtectControlGroups=yes",
  "ProtectClock=yes",
  "ProtectHostname=yes",
  "ProtectProc=invisible",
  "RestrictSUIDSGID=yes",
  "RestrictRealtime=yes",
  "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
  "LockPersonality=yes",
  "SystemCallArchitectures=native",
  "CapabilityBoundingSet=",
  "UMask=0027",
  // A runaway agent (a fork loop, a leak) must not take the host: the whole unit's cgroup,
  // runs included, is throttled past MemoryHigh and killed past MemoryMax. Size them for
  // max_concurrent_runs agents (an agent CLI uses 0.3-1 GiB) plus the daemon, which grows
  // with its schedules (README, "Sizing").
  "MemoryHigh=3G",
  "MemoryMax=4G",
  "TasksMax=1024",
];

/** Folders ProtectHome=yes would hide; paths below them need ProtectHome=read-only instead. */
export const HOME_ROOTS = ["/home", "/root", "/run/user"];

/** ProtectHome= for a unit that must reach `paths`: hidden homes unless a path lives in one. */
export function protectHome(paths: string[]): "yes" | "read-only" {
  const inHome = paths.some((p) =>
    HOME_ROOTS.some((root) => p === root || p.startsWith(`${root}/`)),
  );
  return inHome ? "read-only" : "yes";
}
