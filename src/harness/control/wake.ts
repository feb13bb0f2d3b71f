// Which process a guide or interrupt may wake with SIGUSR1, and the waking. A run's files
// (its registry) can name any pid: of a run started by hand, only a process /proc shows to be a
// harness running a loop is ever signalled, so no signal reaches the daemon, its spawn helper,
// us or an unrelated program (docs/formats.md, "Control files").
import { realpathSync } from "node:fs";
import { basename, resolve, sep } from "node:path";
import { processStartedAt, readCmdline, readCwd, readProcStat } from "../../util/proc-stat.js";

/** The process to wake, or why none is (the request is written either way). */
export type WakeTarget =
  | {
      kind: "pid";
      pid: number /** /proc's start ticks, to tell a reused pid at the last moment. */;
      startTime: string;
    }
  | { kind: "none"; why: string };

export const noWake = (why: string): WakeTarget => ({ kind: "none", why });

/** The harness commands that run a loop (and so read control requests). */
const LOOP_COMMANDS = new Set(["run", "resume", "chain"]);

/** Our bundled `autoloop` (dist/bin/autoloop.cjs) or the public autoloop's (`bin/autoloop`). */
const HARNESS_BINS = [["dist", "bin", "autoloop.cjs"].join(sep), ["bin", "autoloop"].join(sep)];

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Whether a command line is a harness running a loop: Node (and its own `--options`), then an
 * autoloop harness's bin (relative paths taken from `cwd`, links followed), then `run`,
 * `resume` or `chain`. Not `autoloop-cron` (the daemon, its spawn helper, the monitor), not
 * anything else. An option with a separate value (`-r x`) leaves `x` where the bin should be:
 * not a harness, which only ever means nothing is signalled.
 */
export function isHarnessLoopArgv(argv: readonly string[], cwd: string): boolean {
  const node = argv[0];
  const rest = argv.slice(1);
  const first = rest.findIndex((arg) => !arg.startsWith("-"));
  const [bin, command] = first === -1 ? [] : rest.slice(first);
  if (node === undefined || bin === undefined || command === undefined) return false;
  if (!/^node(js)?[\d.]*$/.test(basename(node)) || !LOOP_COMMANDS.has(command)) return false;
  const path = realpathOr(resolve(cwd, bin));
  return HARNESS_BINS.some((tail) => path.endsWith(`${sep}${tail}`));
}

/** `pid` is a live harness running a loop, and not this process. */
export function isHarnessLoop(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) return false;
  const stat = readProcStat(pid);
  if (stat === undefined || stat.state === "Z" || stat.state === "X") return false;
  const argv = readCmdline(pid);
  const cwd = readCwd(pid);
  return argv !== undefined && cwd !== undefined && isHarnessLoopArgv(argv, cwd);
}

/** Slack for /proc's boot time, which is whole seconds. */
const START_SLACK_MS = 2_000;

/**
 * The target for a run started by hand, from the pid its registry names: taken only when it is
 * a harness running a loop that started no later than the run's latest start (`runStart`, its
 * `loop.start` or `loop.resume`): a process started after that is a reused pid.
 */
export function registryPidTarget(pid: number, runStart: string | undefined): WakeTarget {
  if (!isHarnessLoop(pid))
    return noWake(`pid ${pid} in the run's registry is not an autoloop harness running a loop`);
  const started = processStartedAt(pid)?.getTime();
  const run = runStart === undefined ? Number.NaN : Date.parse(runStart);
  if (started === undefined || Number.isNaN(run))
    return noWake(`the start of pid ${pid} or of the run is unknown`);
  if (started > run + START_SLACK_MS)
    return noWake(`pid ${pid} started after the run did (a reused pid)`);
  return pidTarget(pid);
}

/** `pid` as a target, with its start time; none when it is gone or /proc cannot tell. */
export function pidTarget(pid: number): WakeTarget {
  const startTime = readProcStat(pid)?.startTime;
  if (startTime === undefined) return noWake(`pid ${pid} is gone`);
  return { kind: "pid", pid, startTime };
}

/** Wakes the target's harness to read its requests now; false when nothing was signalled. */
export function wake(target: WakeTarget): boolean {
  // Checked again at the last moment: the process may have ended and its pid been reused.
  if (target.kind !== "pid" || target.pid === process.pid) return false;
  const stat = readProcStat(target.pid);
  if (stat === undefined || stat.state === "Z" || stat.state === "X") return false;
  if (stat.startTime !== target.startTime) return false;
  try {
    process.kill(target.pid, "SIGUSR1");
    return true;
  } catch {
    return false;
  }
}
