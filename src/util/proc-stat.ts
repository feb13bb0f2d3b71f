// What /proc (Linux) says of a process: its state, parent, group, start and command line; the
// facts that tell a process we may signal from one that only claims to be it.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface ProcStat {
  state: string;
  ppid: number;
  pgrp: number;
  /** Field 22: clock ticks since boot. */
  startTime: string;
}

/** Fields of /proc/<pid>/stat; the command name may hold spaces and `)`, so split after the last `)`. */
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // After ")": field 3 (state) is index 0, so field N is index N - 3.
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = rest[0];
  const startTime = rest[19];
  if (state === undefined || startTime === undefined) return undefined;
  return { state, ppid: Number(rest[1]), pgrp: Number(rest[2]), startTime };
}

/** A process's argv as the kernel holds it (a changed `process.title` shows here too). */
export function readCmdline(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    return text.split("\0").slice(0, text.endsWith("\0") ? -1 : undefined);
  } catch {
    return undefined;
  }
}

/** The process's working directory, which its relative argv paths are relative to. */
export function readCwd(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

/** The live (not zombie) processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcStat(Number(name));
    if (stat?.ppid === pid && stat.state !== "Z" && stat.state !== "X") out.push(Number(name));
  }
  return out;
}

/**
 * Whether the process has a handler for signal number `signal` (`SigCgt` of
 * /proc/<pid>/status): one without would die of a signal meant to wake it.
 */
export function catchesSignal(pid: number, signal: number): boolean {
  try {
    const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return mask !== undefined && ((BigInt(`0x${mask}`) >> BigInt(signal - 1)) & 1n) === 1n;
  } catch {
    return false;
  }
}

/** Clock ticks a second in /proc's times: USER_HZ, 100 on every Linux architecture Node runs on. */
const USER_HZ = 100;

/**
 * When the process started, by the wall clock (boot time + its start ticks); to within a
 * second, as /proc/stat's `btime` is whole seconds. Undefined without /proc.
 */
export function processStartedAt(pid: number): Date | undefined {
  const stat = readProcStat(pid);
  if (stat === undefined) return undefined;
  let btime: number;
  try {
    btime = Number(/^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1]);
  } catch {
    return undefined;
  }
  if (!Number.isFinite(btime) || btime <= 0) return undefined;
  return new Date(btime * 1000 + (Number(stat.startTime) * 1000) / USER_HZ);
}
