// `autoloop runs list|replay`: inside a scheduled run, the runs of its own schedule from the
// scheduler's ledger, so tonight's run can read where last night's stopped.

import { scratchpad } from "../artifacts/projections.js";
import { scratchpadMd } from "../artifacts/render.js";
import { readJournal } from "../journal/reader.js";
import type { RunSummary, StartedEvent } from "../ledger/events.js";
import { RunLedger } from "../ledger/ledger.js";
import { isScheduledRunId } from "../ledger/scheduled-run-id.js";
import { UserError } from "../util/errors.js";
import { flag, intOption, parse, str } from "./common.js";

const HELP = `Usage: autoloop runs list [--limit N] [--json]
       autoloop runs replay <run-id> [--json]

Inside a scheduled run (the event tool: $AUTOLOOP_BIN runs ...): the runs of its own
schedule, from the scheduler's ledger. list: newest first, with outcome and stop reason.
replay: one run's story from its journal, iteration by iteration (roles, events, refused
completions, exits, output), with how it ended.

Outside a run: --state-dir DIR (the scheduler's state_dir) and --schedule NAME.
`;

function line(r: RunSummary): string {
  const when = r.finishedAt ?? r.startedAt ?? r.slot;
  return `${r.runId}  ${r.status}${r.stopReason ? ` (${r.stopReason})` : ""}  ${when}`;
}

export async function runsCommand(argv: string[]): Promise<number> {
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
  const stateDir = str(p, "state-dir") ?? process.env.AUTOLOOP_CRON_STATE_DIR;
  const schedule = str(p, "schedule") ?? process.env.AUTOLOOP_CRON_SCHEDULE;
  if (stateDir === undefined || schedule === undefined)
    throw new UserError(
      "autoloop runs: only inside a scheduled run (AUTOLOOP_CRON_STATE_DIR and AUTOLOOP_CRON_SCHEDULE), or with --state-dir and --schedule",
    );
  const ledger = RunLedger.open(stateDir);
  const json = flag(p, "json");
  if (sub === "list") {
    const runs = ledger.listRuns({ schedule, limit: intOption(p, "limit", "autoloop runs") ?? 10 });
    if (json) process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
    else
      process.stdout.write(
        runs.length === 0 ? `no runs of ${schedule} yet\n` : `${runs.map(line).join("\n")}\n`,
      );
    return 0;
  }
  if (sub !== "replay")
    throw new UserError(`autoloop runs: unknown subcommand ${JSON.stringify(sub)}\n\n${HELP}`);
  // A step of a scheduled chain (`<chain run>-step-N`) is asked for through its chain.
  const step = id === undefined ? null : /^(.+)-step-(\d+)$/.exec(id);
  const ledgerId = step !== null && isScheduledRunId(step[1]!) ? step[1]! : id;
  if (id === undefined || ledgerId === undefined || !isScheduledRunId(ledgerId))
    throw new UserError(
      `autoloop runs replay: expected a run id of ${schedule}, found ${JSON.stringify(id ?? "")}`,
    );
  const found = ledger.replay(ledgerId);
  if (found === undefined || found.summary.schedule !== schedule)
    throw new UserError(`autoloop runs replay: ${id} is not a run of schedule ${schedule}`);
  const started = found.events.find((e): e is StartedEvent => e.event === "started");
  // A chain's story is its steps' too (their runs are `<chain run>-step-N`); a step's, its own.
  const steps = `${id}-step-`;
  const records =
    started === undefined
      ? []
      : readJournal(started.journalPath).items.filter(
          (r) =>
            r.run === id || (r.run.startsWith(steps) && /^\d+$/.test(r.run.slice(steps.length))),
        );
  // One story per run: the run itself, or each step of a chain in order.
  const runIds = [...new Set(records.map((r) => r.run).filter((r) => r !== id))];
  const stories = (runIds.length > 0 ? runIds : [id]).map((run) => ({
    run,
    iterations: scratchpad(records.filter((r) => r.run === run)),
  }));
  if (json) {
    process.stdout.write(`${JSON.stringify({ summary: found.summary, runs: stories }, null, 2)}\n`);
    return 0;
  }
  const s = found.summary;
  const head = `Run ${id} of ${schedule}: ${s.status}${s.stopReason ? ` (${s.stopReason})` : ""}${s.detail ? ` — ${s.detail}` : ""}`;
  process.stdout.write(
    `${head}\n\n${stories.map((x) => scratchpadMd(x.run, x.iterations)).join("\n")}`,
  );
  return 0;
}
