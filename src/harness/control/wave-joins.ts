// The waves a run's harness joined, in the run's private folder (`waves-joined`, a wave id a
// line): a `<trigger>.joined` record in the journal routes only when its wave is listed, so
// `autoloop resume` of a run that stopped after a join routes from it, and a joined record an
// agent forged in the journal (which it can write) never does.
import { closeSync, writeSync } from "node:fs";
import { join } from "node:path";
import { PRIVATE_FILE } from "../../util/private-files.js";
import { openForAppend, readSmallRegularFile } from "../../util/untrusted-file.js";
import type { PrivateRunPaths } from "./private-run.js";

const joinsFile = (paths: PrivateRunPaths) => join(paths.dir, "waves-joined");

/** Records wave `waveId` as joined by this run's harness (before its joined record is journaled). */
export function recordJoin(paths: PrivateRunPaths, waveId: string): void {
  const fd = openForAppend(joinsFile(paths), PRIVATE_FILE);
  try {
    writeSync(fd, `${waveId}\n`);
  } finally {
    closeSync(fd);
  }
}

/** The wave ids this run's harness joined, in earlier processes too; none when unreadable. */
export function joinedWaves(paths: PrivateRunPaths): string[] {
  const text = readSmallRegularFile(joinsFile(paths)) ?? "";
  return text.split("\n").filter((line) => line !== "");
}
