// Every chain of a work dir and who spawned it, from the journal's chain records: the public
// autoloop's `inspect chain` text ("Chain State", record by record) and our lineage as JSON.
import { fieldText, type JournalRecord } from "../../journal/codec.js";
import { type ChainView, chainOf } from "./projections.js";

const CHAIN_TOPICS = [
  "chain.start",
  "chain.step.start",
  "chain.step.finish",
  "chain.complete",
  "chain.spawn",
];

/** The harness's chain records (an agent's `chain.spawn` request is not one). */
const chainRecords = (records: readonly JournalRecord[]) =>
  records.filter((r) => r.shape === "system" && CHAIN_TOPICS.includes(r.topic));

/** The public `autoloop inspect chain` output, line for line. */
export function chainStateMd(records: readonly JournalRecord[]): string {
  const mine = chainRecords(records);
  if (mine.length === 0) return "(no chain runs found)";
  return `# Chain State\n\n${mine.map(chainEntry).join("")}`;
}

function chainEntry(r: JournalRecord): string {
  const f = (name: string) => fieldText(r, name);
  switch (r.topic) {
    case "chain.start":
      return `## Chain: ${f("name")}\nSteps: ${f("steps")}\n\n`;
    case "chain.step.start":
      return `- Step ${f("step")} (${f("preset")}) started\n`;
    case "chain.step.finish":
      return `- Step ${f("step")} (${f("preset")}) finished: ${f("stop_reason")}\n`;
    case "chain.complete":
      return `\nOutcome: ${f("outcome")} (${f("steps_completed")} steps completed)\n\n`;
    default:
      return `- Spawned: ${f("chain_id")} (parent: ${f("parent_id")}, steps: ${f("steps")})\n`;
  }
}

export interface ChainLineage {
  /** Every chain in the order it started; `parentRunId`: the run a spawned chain came from. */
  chains: Array<ChainView & { parentRunId: string; depth: string }>;
  /** Every spawn the harness ran, in order: the public `chain.spawn` fields, then ours. */
  spawns: Array<{
    chainId: string;
    parentId: string;
    steps: string;
    justification: string;
    depth: string;
  }>;
}

export function chainLineage(records: readonly JournalRecord[]): ChainLineage {
  const mine = chainRecords(records);
  const spawns = mine
    .filter((r) => r.topic === "chain.spawn")
    .map((r) => ({
      chainId: fieldText(r, "chain_id"),
      parentId: fieldText(r, "parent_id"),
      steps: fieldText(r, "steps"),
      justification: fieldText(r, "justification"),
      depth: fieldText(r, "depth"),
    }));
  const chains = mine
    .filter((r) => r.topic === "chain.start")
    .map((start) => ({
      ...chainOf(start.run, records),
      parentRunId: fieldText(start, "parent_run_id"),
      depth: spawns.find((s) => s.chainId === start.run)?.depth ?? "0",
    }));
  return { chains, spawns };
}
