// A slot's claim on the shared filesystem (`<state_dir>/claims/<schedule>/<rest of key>`): the
// one place where two processes that cannot see each other (two pods, a daemon and a `fire`)
// agree on which of them runs a slot. Created by link(2), which is atomic on local filesystems
// and on NFS (where O_EXCL was not before NFSv3), so the file appears with its run id in it.
import { createHash } from "node:crypto";
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { PRIVATE_DIR, PRIVATE_FILE } from "../../util/private-files.js";
import { isScheduledRunId } from "./scheduled-run-id.js";

export const CLAIMS_DIR = "claims";

/** What creating a claim file came to. */
export type FileClaim = { kind: "claimed" } | { kind: "taken"; runId: string };

/** The file `key` (`<schedule>@<rest>`) is claimed by, one folder per schedule. */
export function claimFilePath(stateDir: string, key: string): string {
  const at = key.indexOf("@");
  const schedule = at === -1 ? "_" : key.slice(0, at);
  const rest = encodeURIComponent(key.slice(at + 1));
  // A webhook delivery id can be long: a file name past the usual 255-byte limit is hashed.
  const name = rest.length <= 200 ? rest : createHash("sha256").update(rest).digest("hex");
  return join(stateDir, CLAIMS_DIR, encodeURIComponent(schedule), name);
}

/** Filesystems without hard links (some FUSE and SMB mounts) answer link(2) with these. */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/**
 * The run id the claim file at `path` names (undefined: no claim); empty while its creator,
 * on a filesystem without hard links, is still writing it, or when the text is no run id (the
 * file is shown in messages, and the state dir is within a run's reach under one user).
 */
export function claimOwner(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return "";
  }
  return isScheduledRunId(text) ? text : "";
}

const ownerOf = (path: string): string => claimOwner(path) ?? "";

/** Without hard links: O_EXCL, which NFSv3 and later and every local filesystem honour. */
export function createExclusive(path: string, runId: string): FileClaim {
  let fd: number;
  try {
    fd = openSync(path, "wx", PRIVATE_FILE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return { kind: "taken", runId: ownerOf(path) };
  }
  try {
    writeSync(fd, `${runId}\n`);
  } finally {
    closeSync(fd);
  }
  return { kind: "claimed" };
}

/** The run's own file; its schedule's folder is made the first time (one syscall saved after). */
function writeOwn(own: string, runId: string): void {
  try {
    writeFileSync(own, `${runId}\n`, { mode: PRIVATE_FILE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    mkdirSync(join(own, ".."), { recursive: true, mode: PRIVATE_DIR });
    writeFileSync(own, `${runId}\n`, { mode: PRIVATE_FILE });
  }
}

/**
 * Claims `path` for `runId`, or says who holds it. The run id goes into a file of the run's
 * own, which is then hard-linked to the claim's name: link(2) fails with EEXIST when another
 * process got there first, even over NFS. An NFS reply lost after the server made the link
 * reads as a failure; the temporary file's link count (2) says it succeeded (open(2), NOTES).
 */
export function claimFile(path: string, runId: string): FileClaim {
  const own = `${path}.${runId}.tmp`;
  writeOwn(own, runId);
  try {
    linkSync(own, path);
    return { kind: "claimed" };
  } catch (err) {
    if (statSync(own).nlink === 2) return { kind: "claimed" };
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (code === "EEXIST") return { kind: "taken", runId: ownerOf(path) };
    if (NO_LINKS.has(code)) return createExclusive(path, runId);
    throw err;
  } finally {
    rmSync(own, { force: true });
  }
}
