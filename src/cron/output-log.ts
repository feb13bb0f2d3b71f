// A run's stdout+stderr file, capped: past the cap one marker line is written and the rest dropped.
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import { PRIVATE_DIR, PRIVATE_FILE } from "../util/private-files.js";

export const DEFAULT_OUTPUT_CAP_BYTES = 10 * 1024 * 1024;

/**
 * Appends chunks to `path` until `capBytes` have been written. Callers keep feeding it every
 * chunk (so the child's pipes stay drained and it never blocks on a full pipe); dropped
 * bytes are only counted. Memory stays bounded by the cap even if the disk is slow.
 */
export class OutputLog {
  private readonly stream: WriteStream;
  private written = 0;
  private droppedBytes = 0;
  private failure: Error | undefined;

  constructor(
    readonly path: string,
    readonly capBytes = DEFAULT_OUTPUT_CAP_BYTES,
  ) {
    mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR });
    this.stream = createWriteStream(path, { flags: "a", mode: PRIVATE_FILE });
    // A write error (disk full) must not crash the daemon or fail the run: remember it.
    this.stream.on("error", (err) => {
      this.failure ??= err;
    });
  }

  get truncated(): boolean {
    return this.droppedBytes > 0;
  }

  get dropped(): number {
    return this.droppedBytes;
  }

  get error(): Error | undefined {
    return this.failure;
  }

  write(chunk: Buffer | string): void {
    const buf = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    if (buf.length === 0) return;
    const room = Math.max(0, this.capBytes - this.written);
    const kept = buf.length <= room ? buf : buf.subarray(0, room);
    if (kept.length > 0 && this.failure === undefined) this.stream.write(kept);
    this.written += kept.length;
    if (kept.length === buf.length) return;
    // The first byte over the cap, even at a chunk boundary, gets the one marker line.
    if (this.droppedBytes === 0 && this.failure === undefined)
      this.stream.write(`\n[output truncated at ${this.capBytes} bytes]\n`);
    this.droppedBytes += buf.length - kept.length;
  }

  /** Flushes and closes the file; resolves even when writing failed. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.stream.destroyed) return resolve();
      this.stream.end(() => resolve());
      this.stream.once("error", () => resolve());
    });
  }
}
