// The last agent output of one run, read from the journal after `offset` (where it started).
import { closeSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";

/** At most this much of a step's last output is handed to the next step. */
export const HANDOFF_OUTPUT_CHARS = 4000;

export function lastOutputOf(journalFile: string, runId: string, offset: number): string {
  let fd: number;
  try {
    fd = openSync(journalFile, "r");
  } catch {
    return "";
  }
  let text = "";
  // One decoder across reads: a character split between two chunks stays whole.
  const decoder = new StringDecoder("utf8");
  try {
    const chunk = Buffer.alloc(1 << 20);
    for (let pos = offset; ; ) {
      const n = readSync(fd, chunk, 0, chunk.length, pos);
      if (n <= 0) break;
      text += decoder.write(chunk.subarray(0, n));
      pos += n;
    }
    text += decoder.end();
  } finally {
    closeSync(fd);
  }
  let last = "";
  for (const line of text.split("\n")) {
    if (!line.includes('"iteration.finish"')) continue;
    try {
      const r = JSON.parse(line) as { run?: string; topic?: string; fields?: { output?: unknown } };
      if (r.run === runId && r.topic === "iteration.finish" && typeof r.fields?.output === "string")
        last = r.fields.output;
    } catch {
      // A torn last line: the step's earlier output stands.
    }
  }
  return last.length > HANDOFF_OUTPUT_CHARS ? last.slice(-HANDOFF_OUTPUT_CHARS) : last;
}
