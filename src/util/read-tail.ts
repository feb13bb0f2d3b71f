// The end of a file as text, for quoting a log's last lines.
import { closeSync, readSync } from "node:fs";
import { openRegularFile } from "./untrusted-file.js";

/** The last `bytes` of a file as text (from a line start when it was cut), or undefined. */
export function readTail(path: string, bytes: number): string | undefined {
  let opened: ReturnType<typeof openRegularFile>;
  try {
    opened = openRegularFile(path);
  } catch {
    return undefined;
  }
  if (opened === undefined) return undefined;
  const { fd } = opened;
  try {
    const size = opened.stat.size;
    const start = Math.max(0, size - bytes);
    const buf = Buffer.alloc(size - start);
    const n = readSync(fd, buf, 0, buf.length, start);
    const text = buf.toString("utf8", 0, n);
    return start > 0 ? text.slice(text.indexOf("\n") + 1) : text;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
