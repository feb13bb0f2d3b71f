// `autoloop stats`: per preset, its runs in a work dir: outcomes, success rate, mean
// iterations and duration, and what they cost.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { presetStats } from "../harness/artifacts/stats.js";
import { readJournal } from "../journal/reader.js";
import { UserError } from "../util/errors.js";
import { flag, parse, str, table } from "./common.js";

const HELP = `Usage: autoloop stats [--work-dir DIR] [--json]

Per preset, the runs in DIR's journal: finished runs and their outcomes (completed, failed,
stopped, interrupted), runs not finished (running or crashed), the success rate, the mean
iterations and duration of finished runs, and the known cost of all of them (runs with an
iteration of unknown cost are counted apart: a cost nobody reported is not 0).

--work-dir DIR   the directory holding .autoloop/ (default: current dir)
--json           the figures as JSON
`;

export async function statsCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    { json: { type: "boolean" }, "work-dir": { type: "string" } },
    "autoloop stats",
  );
  if (flag(p, "help")) {
    process.stdout.write(HELP);
    return 0;
  }
  const workDir = resolve(str(p, "work-dir") ?? process.cwd());
  if (!existsSync(workDir))
    throw new UserError(
      `autoloop stats: --work-dir ${workDir} does not exist; pass the project folder the runs ran in`,
    );
  const { items } = readJournal(join(workDir, ".autoloop", "journal.jsonl"));
  const stats = presetStats(items);
  if (flag(p, "json")) {
    process.stdout.write(`${JSON.stringify(stats, null, 2)}\n`);
    return 0;
  }
  if (stats.length === 0) {
    process.stdout.write("No runs.\n");
    return 0;
  }
  const fixed = (n: number | undefined, digits: number) =>
    n === undefined ? "-" : n.toFixed(digits);
  const rows = [
    [
      "PRESET",
      "RUNS",
      "OK",
      "FAILED",
      "STOPPED",
      "UNFINISHED",
      "SUCCESS",
      "MEAN ITER",
      "MEAN S",
      "COST USD",
    ],
  ];
  for (const s of stats)
    rows.push([
      s.preset,
      String(s.runs),
      String(s.completed),
      String(s.failed),
      String(s.stopped + s.interrupted),
      String(s.unfinished),
      s.success_rate === undefined ? "-" : `${Math.round(s.success_rate * 100)}%`,
      fixed(s.mean_iterations, 1),
      fixed(s.mean_duration_s, 1),
      s.runs_with_unknown_cost === 0
        ? s.cost_usd.toFixed(4)
        : `${s.cost_usd.toFixed(4)} (${s.runs_with_unknown_cost} runs unknown)`,
    ]);
  process.stdout.write(`${table(rows)}\n`);
  return 0;
}
