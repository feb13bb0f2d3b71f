#!/usr/bin/env node
// `autoloop-cron`: the scheduler daemon and its operator commands (being assembled).
import { runMain } from "./common.js";

async function main(): Promise<number> {
  process.stderr.write("autoloop-cron: not assembled yet\n");
  return 2;
}

await runMain(main, "autoloop-cron");
