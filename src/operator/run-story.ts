// A past run told as a story: iteration by iteration (roles, events, refused completions,
// exits, output) and how it ended, from the ledger and the run's journal. `autoloop runs
// replay` inside a run and the MCP server's replay_run both tell it.
import type { IterationView } from "../harness/artifacts/projections.js";
import { scratchpad } from "../harness/artifacts/projections.js";
import { scratchpadMd } from "../harness/artifacts/render.js";
import type { RunSummary, StartedEvent } from "../scheduler/ledger/events.js";
import type { RunLedger } from "../scheduler/ledger/ledger.js";
import { isScheduledRunId } from "../scheduler/ledger/scheduled-run-id.js";
import { runRecords } from "./run-detail.js";

export interface RunStory {
  /** The id asked for: a run, or a step of a scheduled chain (`<chain run>-step-N`). */
  id: string;
  summary: RunSummary;
  /** The run itself, or each step of a chain in order. */
  runs: { run: string; iterations: IterationView[] }[];
}

/** The ledger's id for `id`: a chain step is found through its chain's run. */
export function ledgerIdOf(id: string): string | undefined {
  const step = /^(.+)-step-(\d+)$/.exec(id);
  const ledgerId = step !== null && isScheduledRunId(step[1]!) ? step[1]! : id;
  return isScheduledRunId(ledgerId) ? ledgerId : undefined;
}

export function runStory(ledger: Pick<RunLedger, "replay">, id: string): RunStory | undefined {
  const ledgerId = ledgerIdOf(id);
  const found = ledgerId === undefined ? undefined : ledger.replay(ledgerId);
  if (found === undefined) return undefined;
  const started = found.events.find((e): e is StartedEvent => e.event === "started");
  const records =
    started === undefined ? [] : runRecords(started.journalPath, id, started.journalOffset).records;
  const runIds = [...new Set(records.map((r) => r.run).filter((r) => r !== id))];
  const runs = (runIds.length > 0 ? runIds : [id]).map((run) => ({
    run,
    iterations: scratchpad(records.filter((r) => r.run === run)),
  }));
  return { id, summary: found.summary, runs };
}

/** The story as Markdown: a heading line with the outcome, then each run's iterations. */
export function runStoryText(story: RunStory): string {
  const s = story.summary;
  const head = `Run ${story.id} of ${s.schedule}: ${s.status}${s.stopReason ? ` (${s.stopReason})` : ""}${s.detail ? ` — ${s.detail}` : ""}`;
  return `${head}\n\n${story.runs.map((x) => scratchpadMd(x.run, x.iterations)).join("\n")}`;
}
