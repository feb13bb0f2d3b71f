// `autoloop runs clean [--max-age 7d]`: removes the folders of runs that ended long enough ago
// (the public autoloop's verb); the journal and registry keep every run's history.
import {
  listRunFolders,
  liveRunIds,
  planClean,
  removeRunFolder,
  runsFolder,
} from "../harness/overview/clean.js";
import { processCheckHere, readRuns } from "../harness/overview/runs.js";
import { DURATION_HINT, parseDuration } from "../util/duration.js";
import { UserError } from "../util/errors.js";
import { flag, parse, str, workDirOf } from "./common.js";

export const RUNS_CLEAN_HELP = `Usage: autoloop runs clean [--max-age AGE] [--dry-run] [--json] [--work-dir DIR]

Removes .autoloop/runs/<run-id>/ (a run's tasks, prompt, event tool, scratch files) of every
run that is not live and whose folder has not changed for AGE. A run the registry marks
running whose process is still there is kept. The journal and the registry are not touched:
\`autoloop inspect\`, \`stats\` and \`loops\` still show the run.

Options:
  --max-age AGE   days (a number, as the public autoloop takes it) or a duration such as
                  "12h"; default 7 days; 0 removes the folders of all runs not live
  --dry-run       say what would go, remove nothing
  --json          {"removed": [...], "kept": [{"run_id", "why": "live|recent"}], "dry_run"}
  --work-dir DIR  the project folder holding .autoloop/ (default: $AUTOLOOP_PROJECT_DIR, else .)

Exit codes: 0 success, 1 a usage mistake.
`;

function maxAgeMs(given: string | undefined): number {
  if (given === undefined) return 7 * 86_400_000;
  const days = Number(given);
  const ms =
    given.trim() !== "" && Number.isFinite(days) ? days * 86_400_000 : parseDuration(given);
  if (ms === undefined || ms < 0)
    throw new UserError(
      `autoloop runs clean: --max-age ${JSON.stringify(given)} is neither a number of days (0 or more) nor ${DURATION_HINT}`,
      1,
    );
  return ms;
}

export async function runsCleanCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    {
      "max-age": { type: "string" },
      "dry-run": { type: "boolean" },
      json: { type: "boolean" },
      "work-dir": { type: "string" },
    },
    "autoloop runs clean",
    1,
  );
  if (flag(p, "help")) {
    process.stdout.write(RUNS_CLEAN_HELP);
    return 0;
  }
  if (p.positionals.length > 0)
    throw new UserError(
      `autoloop runs clean: unexpected argument ${JSON.stringify(p.positionals[0])}; see \`autoloop runs clean --help\``,
      1,
    );
  const age = maxAgeMs(str(p, "max-age"));
  const workDir = workDirOf(p, "autoloop runs clean");
  const live = liveRunIds(readRuns(workDir), processCheckHere());
  const plan = planClean(listRunFolders(workDir), live, age, Date.now());
  const dryRun = flag(p, "dry-run");
  const removed = plan.filter((d) => d.kind === "remove").map((d) => d.name);
  if (!dryRun) for (const name of removed) removeRunFolder(workDir, name);
  const kept = plan.flatMap((d) => (d.kind === "keep" ? [{ run_id: d.name, why: d.why }] : []));
  if (flag(p, "json")) {
    process.stdout.write(`${JSON.stringify({ removed, kept, dry_run: dryRun }, null, 2)}\n`);
    return 0;
  }
  const verb = dryRun ? "Would clean" : "Cleaned";
  process.stdout.write(
    removed.length === 0
      ? `No run-scoped directories to clean in ${runsFolder(workDir)}.\n`
      : `${verb} ${removed.length} run directory(s): ${removed.join(", ")}\n`,
  );
  const liveKept = kept.filter((k) => k.why === "live").length;
  if (kept.length > 0)
    process.stdout.write(
      `Kept ${kept.length} (${liveKept} live, ${kept.length - liveKept} changed within --max-age).\n`,
    );
  return 0;
}
