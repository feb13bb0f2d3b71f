// `autoloop verify`: a completed run's claim checked again, out of band, by the preset's own
// acceptance commands (`[acceptance] verify_cmds`, `verify_cmd`, `criteria` "text :: command"),
// as the public autoloop's post-fire verifier does. The commands come from the operator's
// preset, never from anything the run wrote.
import { spawn } from "node:child_process";
import { criterionChecks, gateCommands } from "../preset/acceptance.js";

export type Reconcile = "confirmed" | "false_done" | "unverifiable";

export interface VerifyFailure {
  command: string;
  exitCode: number;
  tail: string;
}

export interface VerifyResult {
  reconcile: Reconcile;
  ranChecks: number;
  failures: VerifyFailure[];
}

/** Every check command of an `[acceptance]` table, in the public autoloop's order. */
export function checkCommands(acceptance: unknown): string[] {
  return [...gateCommands(acceptance), ...criterionChecks(acceptance).map((c) => c.check)];
}

export function reconcile(ranChecks: number, failures: number): Reconcile {
  if (ranChecks === 0) return "unverifiable";
  return failures === 0 ? "confirmed" : "false_done";
}

/** How much of a failed check's output is kept (its end, where errors are). */
const TAIL_CHARS = 1000;

/**
 * One check with `/bin/sh -c` in the work dir (the preset's own commands, as the public
 * autoloop runs them): its exit code (124 past the timeout) and the end of its output.
 */
function runCheck(
  workDir: string,
  command: string,
  timeoutMs: number,
): Promise<{ exitCode: number; tail: string }> {
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", command], {
      cwd: workDir,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutMs,
      killSignal: "SIGKILL",
    });
    let out = "";
    const keep = (chunk: Buffer) => {
      out = (out + chunk.toString("utf8")).slice(-TAIL_CHARS);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (err) => resolve({ exitCode: 127, tail: err.message }));
    child.on("close", (code, signal) =>
      resolve({ exitCode: signal === "SIGKILL" ? 124 : (code ?? 1), tail: out }),
    );
  });
}

/** Runs each check in turn; a check past the timeout exits 124. */
export async function runChecks(
  workDir: string,
  cmds: readonly string[],
  timeoutMs: number,
): Promise<VerifyResult> {
  const failures: VerifyFailure[] = [];
  for (const command of cmds) {
    const { exitCode, tail } = await runCheck(workDir, command, timeoutMs);
    if (exitCode !== 0) failures.push({ command, exitCode, tail });
  }
  return { reconcile: reconcile(cmds.length, failures.length), ranChecks: cmds.length, failures };
}
