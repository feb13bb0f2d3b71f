// `autoloop-cron spawn-helper`: the daemon's spawn helper (src/launch/spawn-helper.ts); the
// daemon starts it with an IPC channel, and it ends when that channel closes.
import { serveSpawnRequests } from "../scheduler/launch/spawn-helper.js";
import { UserError } from "../util/errors.js";

export async function spawnHelperCommand(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(
      "Usage: autoloop-cron spawn-helper\n\nStarted by `autoloop-cron start` to spawn its runs; not run by hand.\n",
    );
    return 0;
  }
  if (process.send === undefined)
    throw new UserError(
      "spawn-helper is started by `autoloop-cron start` (it needs its IPC channel)",
      2,
    );
  serveSpawnRequests();
  return 0; // serves until the daemon closes the channel
}
