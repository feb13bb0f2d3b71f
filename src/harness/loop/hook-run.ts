// One hook as a process: its argv (never a shell unless the preset's line asks for one, as the
// public autoloop's does), the run's environment without its secrets plus the public
// AUTOLOOP_* variables, its own process group, a timeout, no stdin; and the git HEAD it sees.
import { execFileSync } from "node:child_process";
import { runAgent } from "../agents/backend.js";
import type { AgentReaper } from "../agents/reaper.js";
import { OPERATOR_DIR_ENV } from "../control/private-run.js";
import { type HookSpec, hookArgv } from "../preset/hooks.js";
import { substitute } from "./prompt.js";
import type { Run } from "./run-state.js";

/** When a hook runs: the public autoloop's variables for that moment. */
export interface HookMoment {
  iteration?: number;
  gitShaBefore?: string;
  gitShaAfter?: string;
  /** post_run: "completed" for a completed run, else the stop reason. */
  stopReason?: string;
  /** pre_emit, post_emit: the agent's event (ours: the public harness names none). */
  event?: { topic: string; payload: string };
}

export type HookRun =
  /** `stdout` whole, unless `stdoutCut` (longer than the tail kept): what a mutation reads. */
  | { kind: "ok"; output: string; stdout: string; stdoutCut: boolean }
  | { kind: "failed"; exitCode: number; output: string; detail: string; timedOut: boolean }
  | { kind: "interrupted"; output: string };

/** Hook output kept for the journal (the tail), and the most a mutation's text may be. */
export const MAX_OUTPUT_BYTES = 64 * 1024;

/**
 * Whether an event's payload is handed to its hooks: no environment string holds a NUL, and a
 * payload past this size is left out (one string is capped at 128 KiB on Linux).
 */
export function payloadFits(payload: string): boolean {
  return Buffer.byteLength(payload) <= MAX_OUTPUT_BYTES && !payload.includes("\0");
}

/** The hook's environment: the run's, minus its secrets (env files' values), plus the moment. */
export function hookEnv(run: Run, moment: HookMoment): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...run.opts.env };
  for (const name of Object.keys(run.opts.secretEnv ?? {})) delete env[name];
  delete env.AUTOLOOP_SECRET_ENV;
  // As from the agent's: a hook runs the run's own code (its tests, its scripts), which has no
  // business knowing where the operator's requests and the run's end record live.
  delete env[OPERATOR_DIR_ENV];
  const set = (name: string, value: string | undefined) => {
    if (value === undefined) delete env[name];
    else env[name] = value;
  };
  set("AUTOLOOP_PROJECT_DIR", run.paths.workDir);
  set("AUTOLOOP_RUN_ID", run.runId);
  set("AUTOLOOP_PRESET", run.preset.name);
  set("AUTOLOOP_TASKS_FILE", run.paths.tasksFile);
  set("AUTOLOOP_ITERATION", moment.iteration?.toString());
  set("AUTOLOOP_GIT_SHA_BEFORE", moment.gitShaBefore);
  set("AUTOLOOP_GIT_SHA_AFTER", moment.gitShaAfter);
  set("AUTOLOOP_STOP_REASON", moment.stopReason);
  set("AUTOLOOP_EVENT_TOPIC", moment.event?.topic);
  const payload = moment.event?.payload;
  set(
    "AUTOLOOP_EVENT_PAYLOAD",
    payload !== undefined && payloadFits(payload) ? payload : undefined,
  );
  return env;
}

export async function runHook(
  run: Run,
  spec: HookSpec,
  env: NodeJS.ProcessEnv,
  reaper: AgentReaper | undefined,
): Promise<HookRun> {
  // The public autoloop's placeholders ({{PRESET_DIR}}: a script the preset ships).
  const argv = hookArgv(spec.command).map((a) =>
    substitute(a, run.paths, run.runId, run.preset.dir),
  );
  const [command, ...args] = argv;
  const stdout = new LineTail(MAX_OUTPUT_BYTES);
  const r = await runAgent({
    command: command!,
    args,
    promptMode: "stdin",
    prompt: "",
    promptPath: "",
    // post_run runs after the finish, which may have removed the run's worktree.
    cwd: spec.phase === "post_run" ? run.paths.workDir : run.agentDir,
    env,
    timeoutMs: spec.timeoutMs,
    killGraceMs: run.preset.config.backend.kill_grace_ms,
    signal: run.opts.signal,
    maxOutputBytes: MAX_OUTPUT_BYTES,
    reaper,
    onStdoutLine: (line) => stdout.push(line),
    // As the harness's user, never the agent's; without the capabilities the harness holds.
    launch: { user: undefined, setpriv: run.launch.setpriv },
  });
  // The public record's text: stdout, then stderr after a `[stderr]` line.
  const output = `${stdout.text()}${r.stderr === "" ? "" : `\n[stderr]\n${r.stderr}`}`.trim();
  if (r.kind === "interrupted") return { kind: "interrupted", output };
  if (r.kind === "exited" && r.exitCode === 0)
    return { kind: "ok", output, stdout: stdout.text(), stdoutCut: stdout.cut };
  const why = r.kind === "timed_out" ? "timed out" : r.kind === "spawn_failed" ? r.error : "";
  const said = firstLine(r.stderr) || firstLine(stdout.text()) || why;
  const exitCode = r.kind === "exited" ? r.exitCode : -1;
  const detail =
    r.kind === "timed_out"
      ? `hook ${spec.phase} timed out after ${spec.timeoutMs} ms${said === why ? "" : `: ${said}`}`
      : `hook ${spec.phase} failed (exit ${exitCode}): ${said}`;
  return { kind: "failed", exitCode, output, detail, timedOut: r.kind === "timed_out" };
}

/** The last lines of a stream, each with its newline, up to about `max` characters. */
class LineTail {
  private lines: string[] = [];
  private size = 0;
  /** Whether lines were dropped from the front. */
  cut = false;
  constructor(private readonly max: number) {}
  push(whole: string): void {
    // One line longer than the whole tail keeps only its own tail.
    const line = whole.length < this.max ? whole : whole.slice(-this.max);
    if (line !== whole) this.cut = true;
    this.lines.push(`${line}\n`);
    this.size += line.length + 1;
    while (this.size > this.max && this.lines.length > 1) {
      this.size -= this.lines.shift()!.length;
      this.cut = true;
    }
  }
  text(): string {
    return this.lines.join("");
  }
}

function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l !== "") ?? ""
  );
}

/** `git rev-parse HEAD` where the agent works; "" outside a repository (as the public autoloop). */
export function gitHead(dir: string): string {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 10_000,
    }).trim();
  } catch {
    return "";
  }
}
