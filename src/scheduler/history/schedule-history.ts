// What a scheduled run is told about its schedule's recent runs: outcome, stop reason, tasks
// left open, and the open incident's latest changelog entry, within a budget. Composed by the
// scheduler at launch from the ledger, the runs' task files and the incidents folder, and
// handed to the harness as a file in the run's hand-over folder (AUTOLOOP_HISTORY_FILE).
import { join } from "node:path";
import { TaskStore } from "../../harness/tasks/store.js";
import { isActive } from "../../incidents/record.js";
import { IncidentStore } from "../../incidents/store.js";
import type { RunSummary } from "../ledger/events.js";
import type { RunLedger } from "../ledger/ledger.js";
import { handOver } from "./handover.js";
import { runsSnapshot } from "./runs-snapshot.js";

/** Most characters the section takes in a prompt. */
export const HISTORY_BUDGET_CHARS = 2000;

const ENDED = new Set(["completed", "failed", "killed", "timed_out", "interrupted"]);

export interface HistoryInput {
  ledger: Pick<RunLedger, "listRuns">;
  schedule: { name: string; projectDir: string };
  incidentsDir: string;
  /** How many of the newest ended runs (the schedule's `history`). */
  runs: number;
  budgetChars?: number;
}

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

function openTasks(projectDir: string, runId: string): string {
  const file = join(projectDir, ".autoloop", "runs", runId, "tasks.jsonl");
  const open = new TaskStore(file).view().open;
  if (open.length === 0) return "";
  const listed = open.slice(0, 3).map((t) => `${t.id} ${clip(t.text, 60)}`);
  const more = open.length > 3 ? ` and ${open.length - 3} more` : "";
  return `; ${open.length} task${open.length === 1 ? "" : "s"} left open: ${listed.join("; ")}${more}`;
}

function runLine(r: RunSummary, projectDir: string): string {
  const when = r.finishedAt ?? r.startedAt ?? r.slot;
  const why = r.stopReason ?? r.detail;
  return `- ${when} ${r.runId}: ${r.status}${why ? ` (${clip(why, 120)})` : ""}${openTasks(projectDir, r.runId)}`;
}

/** The latest changelog entry of the schedule's open incident, if it has one. */
function incidentLine(incidentsDir: string, schedule: string): string | undefined {
  let incidents: ReturnType<IncidentStore["list"]>;
  try {
    incidents = new IncidentStore(incidentsDir).list();
  } catch {
    return undefined;
  }
  const open = incidents
    .filter((i) => i.schedule === schedule && isActive(i))
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
  if (open === undefined) return undefined;
  const entry = /###\s+(.+?)\n([\s\S]*?)(?=\n###\s|$)/.exec(open.body);
  const latest = entry
    ? `${entry[1]}: ${entry[2]!.replace(/^- /gm, "").replace(/\s+/g, " ").trim()}`
    : "";
  return `Open incident ${open.slug} (${open.status}): ${clip(open.name, 100)}${latest ? `; latest: ${clip(latest, 300)}` : ""}`;
}

/** The section's text, or "" when there is nothing to tell (or `runs` is 0). */
export function scheduleHistory(input: HistoryInput): string {
  if (input.runs <= 0) return "";
  const { name, projectDir } = input.schedule;
  const ended = input.ledger
    .listRuns({ schedule: name, limit: input.runs * 4 + 10 })
    .filter((r) => ENDED.has(r.status))
    .slice(0, input.runs);
  const incident = incidentLine(input.incidentsDir, name);
  if (ended.length === 0 && incident === undefined) return "";
  const lines = [`Recent runs of schedule ${name} (newest first):`];
  for (const r of ended) lines.push(runLine(r, projectDir));
  if (incident !== undefined) lines.push(incident);
  lines.push(
    `(\`$AUTOLOOP_BIN runs replay <run-id>\` tells a run's story; \`runs list\` lists them.)`,
  );
  const budget = input.budgetChars ?? HISTORY_BUDGET_CHARS;
  let text = lines.join("\n");
  // Over budget: the oldest runs go first.
  while (text.length > budget && lines.length > 3) {
    lines.splice(lines.length - (incident === undefined ? 2 : 3), 1);
    text = lines.join("\n");
  }
  return clip(text, budget);
}

/**
 * Gives a preset or chain run its schedule's history and its schedule's recent runs, as copies
 * in the run's hand-over folder (AUTOLOOP_HISTORY_FILE, AUTOLOOP_CRON_RUNS_FILE; handover.ts).
 * The run is not told the state dir. Never fails a launch.
 */
export function attachHistory<
  S extends { kind: string; runId: string; cwd: string; env?: Record<string, string> },
>(
  spec: S,
  input: Omit<HistoryInput, "runs" | "ledger"> & {
    ledger: Pick<RunLedger, "listRuns" | "replay">;
    runs: number;
  },
): S {
  if (spec.kind === "command") return spec;
  const files: Record<string, string> = {};
  try {
    const text = scheduleHistory(input);
    if (text !== "") files["history.md"] = `${text}\n`;
    files["runs.json"] = `${JSON.stringify(runsSnapshot(input.ledger, input.schedule.name))}\n`;
  } catch {
    // A run without its history is still a run.
  }
  const paths = handOver(spec.cwd, spec.runId, files);
  if (paths === undefined) return spec;
  const env: Record<string, string> = { ...spec.env };
  if (paths["history.md"] !== undefined) env.AUTOLOOP_HISTORY_FILE = paths["history.md"];
  if (paths["runs.json"] !== undefined) env.AUTOLOOP_CRON_RUNS_FILE = paths["runs.json"];
  return { ...spec, env };
}
