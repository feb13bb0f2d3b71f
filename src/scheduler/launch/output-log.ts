// A run's stdout+stderr file. The run writes it directly (its own descriptor, so output goes
// on when the daemon dies); while the daemon watches, a cap keeps it bounded: past the cap
// the file is cut back and one marker line says so.
import { appendFileSync, closeSync, mkdirSync, openSync, statSync, truncateSync } from "node:fs";
import { dirname } from "node:path";
import { PRIVATE_DIR, PRIVATE_FILE } from "../../util/private-files.js";

export const DEFAULT_OUTPUT_CAP_BYTES = 10 * 1024 * 1024;

/** How often a watched run's output log is measured against its cap. */
export const OUTPUT_CHECK_MS = 1000;

/** Opens (appends to) the output log, private; the caller hands `fd` to the child. */
export function openOutputFile(path: string): { fd: number; close(): void } {
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR });
  const fd = openSync(path, "a", PRIVATE_FILE);
  return { fd, close: () => closeSync(fd) };
}

export const truncationMarker = (capBytes: number) => `\n[output truncated at ${capBytes} bytes]\n`;

/**
 * Keeps the log at `capBytes` plus one marker line: the first check past the cap cuts the
 * file back and appends the marker; later checks cut what was written after it. Between
 * checks (and while no daemon watches) the file may run over by what the run writes.
 */
export class OutputCap {
  private capped = false;
  private failure: Error | undefined;

  constructor(
    readonly path: string,
    readonly capBytes = DEFAULT_OUTPUT_CAP_BYTES,
  ) {}

  get truncated(): boolean {
    return this.capped;
  }

  get error(): Error | undefined {
    return this.failure;
  }

  check(): void {
    try {
      const size = statSync(this.path).size;
      const marker = truncationMarker(this.capBytes);
      const limit = this.capped ? this.capBytes + Buffer.byteLength(marker) : this.capBytes;
      if (size <= limit) return;
      if (this.capped) {
        truncateSync(this.path, limit);
        return;
      }
      truncateSync(this.path, this.capBytes);
      appendFileSync(this.path, marker);
      this.capped = true;
    } catch (err) {
      // A disk error must not fail the run or the daemon: remember it.
      this.failure ??= err as Error;
    }
  }
}
