// `autoloop loops [--all]|show|artifacts|watch|health`: the public autoloop's operator view of
// a work dir's runs, read from its registry (what each run last said about itself).

import { classifyRuns, healthJson, healthOf } from "../harness/overview/health.js";
import {
  healthText,
  runArtifacts,
  runArtifactsText,
  runDetail,
  runList,
} from "../harness/overview/render.js";
import {
  autoloopDirOf,
  findRun,
  isLive,
  processCheckHere,
  readRuns,
  runSummary,
} from "../harness/overview/runs.js";
import type { RegistryEntry } from "../journal/registry-view.js";
import { UserError } from "../util/errors.js";
import { watchRun } from "./autoloop-loops-watch.js";
import { flag, parse, str, workDirOf } from "./common.js";

const HELP = `Usage: autoloop loops [--all] [--json]            the live runs (all runs with --all)
       autoloop loops show <run-id> [--json]        one run's record and health
       autoloop loops artifacts <run-id> [--json]   where a run's files are
       autoloop loops watch <run-id> [--interval 2s] follow a run until it ends
       autoloop loops health [--verbose] [--json]   stuck, quiet and failed runs first

A run id may be any unique prefix of one. The runs are read from the work dir's
.autoloop/registry.jsonl, which each run writes about itself.

Options:
  --work-dir DIR   the project folder holding .autoloop/ (default: $AUTOLOOP_PROJECT_DIR, else .)
  --json           machine-readable (the public autoloop's keys)

health: a live run quiet past its preset's warning time is "watching", past its stuck time
"stuck" (default 5 and 10 minutes); runs that failed or completed in the last 24 hours follow.
A run marked running whose process is gone counts as stopped.

Exit codes: 0 success, 1 a usage mistake or no such run.
`;

const OPTIONS = {
  all: { type: "boolean" },
  json: { type: "boolean" },
  verbose: { type: "boolean", short: "v" },
  interval: { type: "string" },
  "work-dir": { type: "string" },
} as const;

function out(value: unknown, json: boolean, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}

/** The run an id names; in JSON mode a miss is printed as the public autoloop prints it. */
function lookup(runs: RegistryEntry[], id: string | undefined, sub: string, json: boolean) {
  if (id === undefined)
    throw new UserError(
      `autoloop loops ${sub}: missing required run-id; usage: autoloop loops ${sub} <run-id>`,
      1,
    );
  const found = findRun(runs, id);
  if (found.kind === "found") return found.run;
  const error = found.kind === "none" ? `No run matching '${id}'.` : `Ambiguous run ID '${id}'.`;
  const matches = found.kind === "ambiguous" ? found.matches : undefined;
  if (json) {
    process.stdout.write(`${JSON.stringify({ error, ...(matches && { matches }) }, null, 2)}\n`);
    throw new UserError(`autoloop loops ${sub}: ${error}`, 1);
  }
  const list = matches ? ` Matches:\n${matches.map((m) => `  ${m}`).join("\n")}` : "";
  throw new UserError(
    `autoloop loops ${sub}: ${error}${list}\n\`autoloop loops --all\` lists the runs`,
    1,
  );
}

export async function loopsCommand(argv: string[]): Promise<number> {
  const p = parse(argv, OPTIONS, "autoloop loops", 1);
  if (flag(p, "help")) {
    process.stdout.write(HELP);
    return 0;
  }
  const workDir = workDirOf(p, "autoloop loops");
  const json = flag(p, "json");
  const [sub, id, extra] = p.positionals;
  if (extra !== undefined)
    throw new UserError(
      `autoloop loops: unexpected argument ${JSON.stringify(extra)}; see \`autoloop loops --help\``,
      1,
    );
  const runs = readRuns(workDir);
  const now = Date.now();
  switch (sub) {
    case undefined: {
      const all = flag(p, "all");
      const shown = all ? runs : runs.filter((r) => isLive(r));
      out(shown.map(runSummary), json, () => runList(shown, all));
      return 0;
    }
    case "show": {
      const run = lookup(runs, id, sub, json);
      out({ ...run, health: healthOf(run, now, processCheckHere()) ?? null }, json, () =>
        runDetail(run),
      );
      return 0;
    }
    case "artifacts": {
      const files = runArtifacts(lookup(runs, id, sub, json), autoloopDirOf(workDir));
      out(files, json, () => runArtifactsText(files));
      return 0;
    }
    case "watch":
      return watchRun(workDir, lookup(runs, id, sub, false).run_id, str(p, "interval"));
    case "health": {
      const health = classifyRuns(runs, now, processCheckHere());
      out(healthJson(health), json, () => healthText(health, flag(p, "verbose")));
      return 0;
    }
    default:
      throw new UserError(
        `autoloop loops: unknown subcommand ${JSON.stringify(sub)}; expected show, artifacts, watch or health (see \`autoloop loops --help\`)`,
        1,
      );
  }
}
