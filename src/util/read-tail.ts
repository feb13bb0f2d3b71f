// The end of a file as text, for quoting a log's last lines.
import { closeSync, readSync } from "node:fs";
import { openRegularFile } from "./untrusted-file.js";

/** How far into a cut tail its first line may end and still be dropped as a partial line. */
const NEAR_LINE_START = 200;

/**
 * The last `maxBytes` of a file, decoded as UTF-8 from a line start where one is near, and
 * how many bytes came before it; undefined when there is no file, an `UntrustedFileError`
 * for a FIFO or a link.
 */
export function fileTail(
  path: string,
  maxBytes: number,
): { text: string; omittedBytes: number } | undefined {
  const opened = openRegularFile(path);
  if (opened === undefined) return undefined;
  const size = opened.stat.size;
  const start = Math.max(0, size - maxBytes);
  const buf = Buffer.alloc(size - start);
  let n: number;
  try {
    n = readSync(opened.fd, buf, 0, buf.length, start);
  } finally {
    closeSync(opened.fd);
  }
  let text = buf.toString("utf8", 0, n);
  if (start > 0) {
    const nl = text.indexOf("\n");
    if (nl >= 0 && nl < NEAR_LINE_START) text = text.slice(nl + 1);
  }
  return { text, omittedBytes: size - Buffer.byteLength(text) };
}

/** The last `bytes` of a file as text (see fileTail), or undefined when it cannot be read. */
export function readTail(path: string, bytes: number): string | undefined {
  try {
    return fileTail(path, bytes)?.text;
  } catch {
    return undefined;
  }
}
