// `autoloop runs list|replay`: inside a scheduled run, the runs of its own schedule from the
// scheduler's ledger, so tonight's run can read where last night's stopped.

import { ledgerIdOf, runStory, runStoryText } from "../operator/run-story.js";
import { readRunsSnapshot, snapshotLedger } from "../scheduler/history/runs-snapshot.js";
import type { RunSummary } from "../scheduler/ledger/events.js";
import { RunLedger } from "../scheduler/ledger/ledger.js";
import { UserError } from "../util/errors.js";
import { flag, intOption, parse, str } from "./common.js";

const HELP = `Usage: autoloop runs list [--limit N] [--json]
       autoloop runs replay <run-id> [--json]
       autoloop runs clean [--max-age AGE] [--dry-run] [--json]   (see \`autoloop runs clean --help\`)

Inside a scheduled run (the event tool: $AUTOLOOP_BIN runs ...): the runs of its own
schedule, from the copy of the scheduler's ledger handed to the run at launch
(AUTOLOOP_CRON_RUNS_FILE: its schedule's newest 50 runs). list: newest first, with outcome and stop reason.
replay: one run's story from its journal, iteration by iteration (roles, events, refused
completions, exits, output), with how it ended.

Outside a run: --state-dir DIR (the scheduler's state_dir) and --schedule NAME.
`;

function line(r: RunSummary): string {
  const when = r.finishedAt ?? r.startedAt ?? r.slot;
  return `${r.runId}  ${r.status}${r.stopReason ? ` (${r.stopReason})` : ""}  ${when}`;
}

export async function runsCommand(argv: string[]): Promise<number> {
  // The public autoloop's `runs clean` works on any work dir, without a scheduler's ledger.
  if (argv[0] === "clean")
    return (await import("./autoloop-runs-clean.js")).runsCleanCommand(argv.slice(1));
  const p = parse(
    argv,
    {
      json: { type: "boolean" },
      limit: { type: "string" },
      "state-dir": { type: "string" },
      schedule: { type: "string" },
    },
    "autoloop runs",
  );
  const [sub, id] = p.positionals;
  if (flag(p, "help") || sub === undefined) {
    process.stdout.write(HELP);
    return sub === undefined && !flag(p, "help") ? 2 : 0;
  }
  const { ledger, schedule } = ledgerOf(p);
  const json = flag(p, "json");
  if (sub === "list") {
    const runs = ledger.listRuns({ limit: intOption(p, "limit", "autoloop runs") ?? 10 });
    if (json) process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
    else
      process.stdout.write(
        runs.length === 0 ? `no runs of ${schedule} yet\n` : `${runs.map(line).join("\n")}\n`,
      );
    return 0;
  }
  if (sub !== "replay")
    throw new UserError(`autoloop runs: unknown subcommand ${JSON.stringify(sub)}\n\n${HELP}`);
  const story = id === undefined ? undefined : runStory(ledger, id);
  if (id === undefined || ledgerIdOf(id) === undefined)
    throw new UserError(
      `autoloop runs replay: expected a run id of ${schedule}, found ${JSON.stringify(id ?? "")}`,
    );
  if (story === undefined || story.summary.schedule !== schedule)
    throw new UserError(`autoloop runs replay: ${id} is not a run of schedule ${schedule}`);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ summary: story.summary, runs: story.runs }, null, 2)}\n`,
    );
    return 0;
  }
  process.stdout.write(runStoryText(story));
  return 0;
}

type Parsed = ReturnType<typeof parse>;

/** The scheduler's ledger (--state-dir), else the copy a scheduled run was handed. */
function ledgerOf(p: Parsed): {
  ledger: ReturnType<typeof snapshotLedger>;
  schedule: string;
} {
  const stateDir = str(p, "state-dir");
  const schedule = str(p, "schedule") ?? process.env.AUTOLOOP_CRON_SCHEDULE;
  const snapshot = process.env.AUTOLOOP_CRON_RUNS_FILE;
  if (stateDir !== undefined && schedule !== undefined) {
    const ledger = RunLedger.open(stateDir);
    return {
      ledger: {
        listRuns: ({ limit }) => ledger.listRuns({ schedule, limit }),
        replay: (id) => ledger.replay(id),
      },
      schedule,
    };
  }
  if (snapshot !== undefined && stateDir === undefined) {
    const copy = readRunsSnapshot(snapshot);
    return { ledger: snapshotLedger(copy), schedule: copy.schedule };
  }
  throw new UserError(
    "autoloop runs: only inside a scheduled run (AUTOLOOP_CRON_RUNS_FILE), or with --state-dir and --schedule",
  );
}
