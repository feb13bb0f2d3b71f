// Kills the agent's process group when the harness dies, however it dies (SIGKILL, OOM).
// A tiny `sh` in its own group reads the current agent's group id from a pipe only the
// harness holds; end of file with a group still registered means the harness is gone.
import { type ChildProcess, spawn } from "node:child_process";

// Fixed text: the only input is the pipe, and only digit-only lines are ever used as a group.
const WATCHER = `cur=""
while IFS= read -r line; do
  case "$line" in
    done) exit 0 ;;
    *[!0-9]*|"") cur="" ;;
    *) cur="$line" ;;
  esac
done
if [ -n "$cur" ] && [ "$cur" -gt 1 ]; then kill -s KILL -- "-$cur" 2>/dev/null; fi
`;

export class AgentReaper {
  private child: ChildProcess | undefined;

  /** Registers the agent's group: from now on the harness's death kills it. */
  watch(pgid: number): void {
    if (!Number.isInteger(pgid) || pgid <= 1) return;
    this.send(`${pgid}\n`);
  }

  /** The agent's group is gone (or about to be reused): forget it. */
  release(): void {
    if (this.child !== undefined) this.send("-\n");
  }

  /** The run is over: the watcher exits without killing anything. */
  close(): void {
    const child = this.child;
    if (child === undefined) return;
    this.child = undefined;
    child.stdin?.end("done\n");
  }

  private send(line: string): void {
    const child = this.child ?? this.start();
    if (child?.stdin?.writable) child.stdin.write(line);
  }

  private start(): ChildProcess | undefined {
    try {
      // Its own group, so a signal to the harness's group (the scheduler's timeout) spares it.
      const child = spawn("/bin/sh", ["-c", WATCHER], {
        detached: true,
        stdio: ["pipe", "ignore", "ignore"],
      });
      child.on("error", () => {
        this.child = undefined;
      });
      child.stdin?.on("error", () => {});
      child.unref();
      (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      this.child = child;
      return child;
    } catch {
      return undefined;
    }
  }
}
