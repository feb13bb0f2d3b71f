// `autoloop inspect journal|tasks|runs`: read a work dir's journal, tasks and registry.
import { join, resolve } from "node:path";
import { isValidRunId } from "../core/run-id.js";
import { readJournal } from "../journal/reader.js";
import { readRegistry } from "../journal/registry-view.js";
import { recordSummary } from "../journal/summary.js";
import { TaskStore } from "../tasks/store.js";
import { UserError } from "../util/errors.js";
import { renderTaskList } from "./autoloop-task.js";
import { flag, parse, str, table } from "./common.js";

const HELP = `Usage: autoloop inspect journal|tasks|runs [--run ID] [--json] [--work-dir DIR]

  autoloop inspect runs                  runs recorded in the registry, newest last
  autoloop inspect journal --run ID      one run's journal records (all runs without --run)
  autoloop inspect tasks --run ID        one run's tasks (the newest run without --run)

--work-dir DIR   the directory holding .autoloop/ (default: current dir)
--json           machine-readable output
`;

export async function inspectCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    { run: { type: "string" }, json: { type: "boolean" }, "work-dir": { type: "string" } },
    "autoloop inspect",
  );
  const [what] = p.positionals;
  if (flag(p, "help") || what === undefined) {
    process.stdout.write(HELP);
    return what === undefined && !flag(p, "help") ? 2 : 0;
  }
  const dir = join(resolve(str(p, "work-dir") ?? process.cwd()), ".autoloop");
  const run = str(p, "run");
  if (run !== undefined && !isValidRunId(run))
    throw new UserError(`autoloop inspect: --run ${JSON.stringify(run)} is not a valid run id`);
  const json = flag(p, "json");
  switch (what) {
    case "journal": {
      const { items, skipped } = readJournal(join(dir, "journal.jsonl"));
      const records = run === undefined ? items : items.filter((r) => r.run === run);
      if (json) process.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
      else {
        process.stdout.write(
          records.length === 0
            ? "No journal records.\n"
            : `${table(records.map((r) => [r.ts, r.run, r.iteration ?? "", r.topic, recordSummary(r)]))}\n`,
        );
      }
      if (skipped > 0) process.stderr.write(`(${skipped} unreadable journal lines skipped)\n`);
      return 0;
    }
    case "runs": {
      const runs = [...readRegistry(join(dir, "journal.jsonl")).values()].filter(
        (r) => run === undefined || r.run_id === run,
      );
      if (json) process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
      else if (runs.length === 0) process.stdout.write("No runs.\n");
      else {
        const rows = [["RUN", "STATUS", "PRESET", "TRIGGER", "ITER", "UPDATED", "STOP REASON"]];
        // Registries from other writers may lack fields: show what is there.
        const text = (v: unknown) => (v === undefined || v === null ? "" : String(v));
        for (const r of runs) {
          const iter = `${text(r.iteration)}/${text(r.max_iterations)}`;
          rows.push([
            r.run_id,
            r.status,
            text(r.preset),
            text(r.trigger),
            iter,
            text(r.updated_at),
            text(r.stop_reason),
          ]);
        }
        process.stdout.write(`${table(rows)}\n`);
      }
      return 0;
    }
    case "tasks": {
      const runId = run ?? [...readRegistry(join(dir, "journal.jsonl")).keys()].at(-1);
      if (runId === undefined)
        throw new UserError(`autoloop inspect tasks: no runs in ${dir}; pass --run ID`);
      const store = new TaskStore(join(dir, "runs", runId, "tasks.jsonl"));
      const view = store.view();
      if (json)
        process.stdout.write(
          `${JSON.stringify({ run: runId, file: store.path, ...view }, null, 2)}\n`,
        );
      else process.stdout.write(`Run ${runId}\n${renderTaskList(view)}`);
      return 0;
    }
    default:
      throw new UserError(
        `autoloop inspect: unknown view ${JSON.stringify(what)}; expected journal, tasks or runs`,
      );
  }
}
