// The issue follow-ups given up on, each owed one page: a file per run in
// `state_dir/issue-claims/given-up/`, written by the process that gave up (a daemon, or a
// daemonless `fire`, which has no outbox) and removed by the monitor once its page is on disk in
// the outbox. The file's absence is the mark: a restart pages what is left, and nothing twice.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod";
import { writeFileAtomic } from "../../util/atomic-write.js";
import type { UntoldIssues } from "./issue-followup-failed.js";

const untoldSchema = z.object({
  schedule: z.string(),
  runId: z.string(),
  tracker: z.string(),
  issues: z.array(z.string()),
  error: z.string(),
  fix: z.string(),
  at: z.iso.datetime(),
}) satisfies z.ZodType<UntoldIssues>;

const untoldDir = (stateDir: string) => join(stateDir, "issue-claims", "given-up");
const fileOf = (stateDir: string, runId: string) =>
  join(untoldDir(stateDir), `${encodeURIComponent(runId)}.json`);

export function writeUntoldIssues(stateDir: string, untold: UntoldIssues): void {
  writeFileAtomic(fileOf(stateDir, untold.runId), `${JSON.stringify(untold)}\n`);
}

/** Every follow-up given up on and not paged yet; a file that does not parse is left alone. */
export function listUntoldIssues(stateDir: string): UntoldIssues[] {
  let names: string[];
  try {
    names = readdirSync(untoldDir(stateDir)).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    try {
      const parsed = untoldSchema.safeParse(
        JSON.parse(readFileSync(join(untoldDir(stateDir), name), "utf8")),
      );
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
}

/** Its page is on disk in the outbox (or it is history): not paged again. */
export function removeUntoldIssues(stateDir: string, runId: string): void {
  rmSync(fileOf(stateDir, runId), { force: true });
}
