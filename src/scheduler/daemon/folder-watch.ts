// Watches folders for changes (schedule files, control requests). A folder that cannot be
// watched is logged, not fatal: the daemon's tick and SIGHUP still pick changes up.
import { type FSWatcher, mkdirSync, watch } from "node:fs";
import type { Logger } from "pino";
import { PRIVATE_DIR } from "../../util/private-files.js";

export function watchFolders(
  folders: Array<{ dir: string; onChange: () => void }>,
  log: Logger,
): FSWatcher[] {
  const watchers: FSWatcher[] = [];
  for (const { dir, onChange } of folders) {
    try {
      mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
      const watcher = watch(dir, onChange);
      watcher.on("error", (err) =>
        log.warn({ err, dir }, "cannot watch folder; relying on polling and SIGHUP"),
      );
      watchers.push(watcher);
    } catch (err) {
      log.warn({ err, dir }, "cannot watch folder; relying on polling and SIGHUP");
    }
  }
  return watchers;
}

/** Calls `action` once changes have settled for `ms` (an editor writes a file in steps). */
export function debounced(ms: number, action: () => void): { (): void; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const trigger = () => {
    clearTimeout(timer);
    timer = setTimeout(action, ms);
  };
  trigger.cancel = () => clearTimeout(timer);
  return trigger;
}
