// Runs the agent CLI for one iteration: its own process group, the prompt by argument,
// stdin or file, a tail-capped output buffer, and a timeout that terminates the whole
// group (grandchildren too): SIGTERM first, SIGKILL after a grace period.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { isGroupAlive, signalGroup } from "../../util/process.js";
import type { AgentReaper } from "./reaper.js";
import { type AgentLaunch, launchedAs } from "./run-as.js";

export interface AgentInvocation {
  command: string;
  args: readonly string[];
  promptMode: "arg" | "stdin" | "file";
  prompt: string;
  promptPath: string;
  /** How a prompt argument is attached (after `--` for CLIs with variadic options). */
  promptArg?: (prompt: string) => string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  killGraceMs: number;
  /** Aborted when the harness itself is interrupted. */
  signal: AbortSignal;
  /** Most output kept in memory (the tail wins). */
  maxOutputBytes?: number;
  /** Kills the agent's group if the harness dies while it runs. */
  reaper?: AgentReaper;
  /** Each whole line the agent writes on stdout, as it comes (a CLI's JSON event stream). */
  onStdoutLine?: (line: string) => void;
  /** Each whole line the agent writes on stderr, as it comes. */
  onStderrLine?: (line: string) => void;
  /** As whom, and through what, the agent is started (`backend.run_as`); unset: as the harness. */
  launch?: AgentLaunch | undefined;
}

/** What every result carries: stdout and stderr together as they came, and stderr alone (tails). */
interface Captured {
  output: string;
  stderr: string;
  elapsedMs: number;
}

export type AgentResult =
  | ({ kind: "exited"; exitCode: number } & Captured)
  | ({ kind: "timed_out" } & Captured)
  | ({ kind: "interrupted" } & Captured)
  | ({
      kind: "spawn_failed";
      error: string;
      /** ENOENT and friends, when the system said why. */
      code?: string;
    } & Captured);

const DEFAULT_MAX_OUTPUT = 1 << 20;
/** After the agent exits, how long stray children may keep its pipes open. */
const PIPE_LINGER_MS = 2_000;

/** The argv for the agent: `command args... [prompt | prompt file]`. */
export function agentArgv(
  inv: Pick<AgentInvocation, "args" | "promptMode" | "prompt" | "promptPath" | "promptArg">,
): string[] {
  const attach = inv.promptArg ?? ((text: string) => [text]);
  if (inv.promptMode === "arg") return [...inv.args, ...attach(inv.prompt)];
  if (inv.promptMode === "file") return [...inv.args, ...attach(inv.promptPath)];
  return [...inv.args];
}

class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.max && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.max)).toString("utf8");
  }
}

/** Splits a stream into lines; a line longer than `max` bytes is dropped whole. */
class LineSplitter {
  private pending: Buffer[] = [];
  private size = 0;
  private overlong = false;
  constructor(
    private readonly max: number,
    private readonly onLine: (line: string) => void,
  ) {}
  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.add(chunk.subarray(start, nl));
      this.flush();
      start = nl + 1;
    }
    if (start < chunk.length) this.add(chunk.subarray(start));
  }
  end(): void {
    if (this.size > 0 || this.overlong) this.flush();
  }
  private add(part: Buffer): void {
    if (this.overlong) return;
    this.size += part.length;
    if (this.size > this.max) {
      this.overlong = true;
      this.pending = [];
    } else this.pending.push(part);
  }
  private flush(): void {
    const line = this.overlong ? undefined : Buffer.concat(this.pending).toString("utf8");
    this.pending = [];
    this.size = 0;
    this.overlong = false;
    if (line !== undefined) this.onLine(line);
  }
}

/** Longest stdout line handed to `onStdoutLine` (a JSON event with a large tool result). */
const MAX_LINE_BYTES = 8 << 20;

export async function runAgent(inv: AgentInvocation): Promise<AgentResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const output = new TailBuffer(inv.maxOutputBytes ?? DEFAULT_MAX_OUTPUT);
  const stderr = new TailBuffer(64 * 1024);
  const captured = (): Captured => ({
    output: output.text(),
    stderr: stderr.text(),
    elapsedMs: elapsed(),
  });
  // node:child_process rather than execa here: the harness starts in a fraction of the
  // time without loading it, and it needs nothing beyond a process group and two pipes.
  let child: ChildProcess;
  try {
    const as = launchedAs(inv.launch, inv.command, agentArgv(inv));
    child = spawn(as.command, as.argv, {
      cwd: inv.cwd,
      env: inv.env,
      ...as.ids,
      detached: true,
      stdio: [inv.promptMode === "stdin" ? "pipe" : "ignore", "pipe", "pipe"],
    });
  } catch (err) {
    return spawnFailed(err as NodeJS.ErrnoException, inv.command, captured());
  }
  const finished = new Promise<
    { error: NodeJS.ErrnoException } | { code: number | null; signal: NodeJS.Signals | null }
  >((resolve) => {
    child.once("error", (error: NodeJS.ErrnoException) => resolve({ error }));
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  wirePipes(child, inv, output, stderr);
  const pid = child.pid;
  if (pid !== undefined) inv.reaper?.watch(pid);

  let reason: "timed_out" | "interrupted" | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const terminate = (why: "timed_out" | "interrupted") => {
    if (reason !== undefined || pid === undefined) return;
    reason = why;
    signalGroup(pid, "SIGTERM");
    killTimer = setTimeout(() => signalGroup(pid, "SIGKILL"), inv.killGraceMs);
  };
  const timeout = setTimeout(() => terminate("timed_out"), inv.timeoutMs);
  const onAbort = () => terminate("interrupted");
  if (inv.signal.aborted) onAbort();
  else inv.signal.addEventListener("abort", onAbort, { once: true });

  lingerAfterExit(child, pid, inv.killGraceMs, timeout, () => reason !== undefined);

  try {
    const result = await finished;
    if ("error" in result) {
      // No process ran (a missing command or working directory): nothing to wait for.
      if (pid === undefined || reason === undefined) {
        if (result.error.code === "ENOENT" && !existsSync(inv.cwd))
          result.error.message = `the working directory ${inv.cwd} does not exist`;
        return spawnFailed(result.error, inv.command, captured());
      }
      return { kind: reason, ...captured() };
    }
    if (reason !== undefined) return { kind: reason, ...captured() };
    const exitCode = result.code ?? (result.signal ? 128 + signalNumber(result.signal) : 1);
    return { kind: "exited", exitCode, ...captured() };
  } finally {
    clearTimeout(timeout);
    clearTimeout(killTimer);
    // The leader is gone; whatever is left of a terminated group must not survive it.
    if (pid !== undefined && reason !== undefined) signalGroup(pid, "SIGKILL");
    inv.reaper?.release();
    inv.signal.removeEventListener("abort", onAbort);
  }
}

/** The agent's output into the buffers (and, line by line, to the callers); its prompt by stdin. */
function wirePipes(
  child: ChildProcess,
  inv: AgentInvocation,
  output: TailBuffer,
  stderr: TailBuffer,
): void {
  const lines =
    inv.onStdoutLine === undefined ? undefined : new LineSplitter(MAX_LINE_BYTES, inv.onStdoutLine);
  const errLines =
    inv.onStderrLine === undefined ? undefined : new LineSplitter(64 * 1024, inv.onStderrLine);
  child.stdout?.on("data", (c: Buffer) => {
    output.push(c);
    lines?.push(c);
  });
  child.stdout?.once("close", () => lines?.end());
  child.stderr?.on("data", (c: Buffer) => {
    output.push(c);
    stderr.push(c);
    errLines?.push(c);
  });
  child.stderr?.once("close", () => errLines?.end());
  if (inv.promptMode === "stdin") {
    child.stdin?.on("error", () => {}); // The agent may exit without reading its prompt.
    child.stdin?.end(inv.prompt);
  }
}

/**
 * Once the agent exits, stray background children must not hold the iteration open: the
 * group is ended after a linger, and then the pipes are let go even if a child that left
 * the group (setsid) still holds them.
 */
function lingerAfterExit(
  child: ChildProcess,
  pid: number | undefined,
  killGraceMs: number,
  timeout: NodeJS.Timeout,
  terminating: () => boolean,
): void {
  child.once("exit", () => {
    if (pid === undefined || terminating()) return;
    clearTimeout(timeout); // the agent itself is done; what follows is not its time
    const release = () => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    };
    const linger = setTimeout(() => {
      if (isGroupAlive(pid)) {
        signalGroup(pid, "SIGTERM");
        setTimeout(() => signalGroup(pid, "SIGKILL"), killGraceMs).unref();
      }
      setTimeout(release, killGraceMs + 100).unref();
    }, PIPE_LINGER_MS);
    linger.unref();
    child.once("close", () => clearTimeout(linger));
  });
}

function spawnFailed(
  error: NodeJS.ErrnoException,
  command: string,
  captured: Captured,
): AgentResult {
  const failed: AgentResult = {
    kind: "spawn_failed",
    error: `Command failed with ${error.code ?? "an error"}: ${command}\n${error.message}`,
    ...captured,
  };
  if (error.code !== undefined) failed.code = error.code;
  return failed;
}

const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGTERM: 15,
};
function signalNumber(sig: string): number {
  return SIGNALS[sig] ?? 1;
}
