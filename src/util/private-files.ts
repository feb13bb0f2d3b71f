// The modes of the scheduler's and monitor's state: outbox, incidents, mail, output logs and
// the ledger hold prompts, agent output and alert text, so only their owner may read them.
// Set at creation, so they hold whatever the umask (which can only take bits away).

import { chmodSync, lstatSync, mkdirSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "./errors.js";

export const PRIVATE_FILE = 0o600;
export const PRIVATE_DIR = 0o700;

/** What `checkStateDir` changed, for the log. */
export interface StateDirCheck {
  /** Files and folders whose group/other permissions were taken away: `path (was 0755)`. */
  tightened: string[];
}

/**
 * Makes the state dir fit to hold the daemon's state, at every start: a folder of this user's
 * (refused otherwise), with no group or other permissions on it or its files (two levels
 * down: deeper ones, such as the ledger's run files, the daemon makes itself), and no link
 * among them, since a link
 * the daemon did not make would have it write somewhere else (refused, naming the link).
 */
export function checkStateDir(dir: string): StateDirCheck {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  const tightened: string[] = [];
  const uid = process.getuid?.();
  const visit = (path: string, depth: number) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink())
      throw new UserError(
        `${path} is a symbolic link inside the state dir: the daemon writes its state only to files it made; remove the link (the state dir itself may be a link)`,
      );
    if (uid !== undefined && st.uid !== uid)
      throw new UserError(
        `${path} belongs to user ${st.uid}, not to the user that runs the daemon (${uid}): chown it, or point state_dir elsewhere`,
      );
    if ((st.mode & 0o077) !== 0 && (st.isDirectory() || st.isFile())) {
      chmodSync(path, st.mode & 0o700); // the owner's bits stay, the rest go
      tightened.push(`${path} (was ${(st.mode & 0o777).toString(8).padStart(4, "0")})`);
    }
    if (st.isDirectory() && depth < 2)
      for (const name of readdirSync(path)) visit(join(path, name), depth + 1);
  };
  // The state dir itself may be reached through a link the user chose: follow that one.
  visit(realpathSync(dir), 0);
  return { tightened };
}
