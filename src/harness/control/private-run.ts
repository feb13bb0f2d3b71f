// A run's private files: what the harness says it launched (`launch.json`), the question it
// asked (`question.json`), how it ended and what it spent (`end.json`) and the operator's
// requests to it (`control/`). They live under the operator's state home, never in the
// project, whose files the run's agent writes: what an operator sends a run, what `resume`
// runs again and what a budget books never comes from a file the run was pointed at
// (docs/formats.md, "Who writes what").
import { chmodSync, mkdirSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { hexDigest } from "../../util/digest.js";
import { PRIVATE_DIR } from "../../util/private-files.js";
import { isValidRunId } from "../run-id.js";
import type { ControlPaths } from "./requests.js";

/** The variable that moves the operator's state home (tests, a shared on-call account). */
export const OPERATOR_DIR_ENV = "AUTOLOOP_OPERATOR_DIR";

/** `$AUTOLOOP_OPERATOR_DIR`, else `$XDG_STATE_HOME/autoloop`, else `~/.local/state/autoloop`. */
export function operatorStateHome(env: NodeJS.ProcessEnv = process.env): string {
  const own = env[OPERATOR_DIR_ENV];
  if (own !== undefined && own !== "") return own;
  const xdg = env.XDG_STATE_HOME;
  if (xdg?.startsWith("/")) return join(xdg, "autoloop");
  return join(env.HOME || homedir(), ".local", "state", "autoloop");
}

export interface PrivateRunPaths {
  dir: string;
  launch: string;
  question: string;
  end: string;
  control: ControlPaths;
}

/** A journal's path with its folder's links resolved: the same file by any path names one run. */
export function journalIdentity(journalFile: string): string {
  const path = resolve(journalFile);
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

/**
 * The private folder of run `runId` of the journal `journalFile`: `runs/<run-id>.<digest of the
 * journal's path>` (two projects may each have a run of the same given id).
 */
export function privateRunPaths(
  runId: string,
  journalFile: string,
  env: NodeJS.ProcessEnv = process.env,
) {
  if (!isValidRunId(runId)) throw new Error(`unsafe run id ${JSON.stringify(runId)}`);
  const where = hexDigest("sha256", journalIdentity(journalFile)).slice(0, 12);
  const dir = join(operatorStateHome(env), "runs", `${runId}.${where}`);
  const control = join(dir, "control");
  return {
    dir,
    launch: join(dir, "launch.json"),
    question: join(dir, "question.json"),
    end: join(dir, "end.json"),
    control: {
      dir: control,
      requests: join(control, "requests.jsonl"),
      status: join(control, "status.jsonl"),
      capabilities: join(control, "capabilities.json"),
    },
  } satisfies PrivateRunPaths;
}

/**
 * Makes the run's private folder, 0700 (and the folders above it that it makes): an agent
 * that runs as another user (`backend.run_as`) can neither read nor write it.
 */
export function makePrivateRunDir(paths: PrivateRunPaths): void {
  mkdirSync(paths.dir, { recursive: true, mode: PRIVATE_DIR });
  chmodSync(paths.dir, PRIVATE_DIR);
}
