// The run's own little supervisor, so a run never depends on the daemon staying alive: a
// fixed `sh` script (argv only, nothing from config in its text) leads the run's process
// group, runs the program with stdout and stderr on the output log's file descriptor (no
// pipe to the daemon, so no SIGPIPE when it dies), and writes the program's exit status
// beside the log, where the daemon, or the next one after a crash, reads it.

import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * `$1` is the status file; the rest is the program's argv. SIGTERM, SIGINT and SIGHUP to the
 * group reach the program; the shell's trap (not an ignore, which the program would inherit)
 * lets it outlive them long enough to record how the program ended.
 */
export const WRAPPER_SCRIPT = `trap ':' HUP INT TERM
status=$1
shift
"$@"
code=$?
printf '%s\\n' "$code" > "$status.tmp" && mv -f "$status.tmp" "$status"
exit "$code"
`;

/** `/bin/sh -c <script> autoloop-run <status> <argv...>` */
export function wrappedArgv(statusPath: string, argv: readonly string[]): string[] {
  return ["/bin/sh", "-c", WRAPPER_SCRIPT, "autoloop-run", statusPath, ...argv];
}

/** `<output dir>/<run-id>.exit`, beside the run's output log. */
export function exitStatusPath(outputPath: string, runId: string): string {
  return join(dirname(outputPath), `${runId}.exit`);
}

/**
 * The program's recorded exit code, or undefined when the wrapper never wrote one (it was
 * killed itself, with the whole group). A shell reports a program killed by signal N as
 * 128 + N, so codes above 128 are ambiguous; `exitDetail` (outcome.ts) says so.
 */
export function readExitStatus(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
  return /^\d{1,3}$/.test(text) ? Number(text) : undefined;
}

/** Once its status is in the ledger, the file has done its job. */
export function removeExitStatus(path: string): void {
  rmSync(path, { force: true });
}
