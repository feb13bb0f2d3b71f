// A slot's claim on the shared filesystem (`<state_dir>/claims/<schedule>/<rest of key>`): the
// one place where two processes that cannot see each other (two pods, a daemon and a `fire`)
// agree on which of them runs a slot. Created by link(2), which is atomic on local filesystems
// and on NFS (where O_EXCL was not before NFSv3), so the file appears with its run id in it.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createByLink, createExclusiveFile } from "../../util/link-create.js";
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
  return createExclusiveFile(path, `${runId}\n`)
    ? { kind: "claimed" }
    : { kind: "taken", runId: ownerOf(path) };
}

/** Claims `path` for `runId` (hard-linked from a file of the run's own), or says who holds it. */
export function claimFile(path: string, runId: string): FileClaim {
  return createByLink(path, `${path}.${runId}.tmp`, `${runId}\n`)
    ? { kind: "claimed" }
    : { kind: "taken", runId: ownerOf(path) };
}
