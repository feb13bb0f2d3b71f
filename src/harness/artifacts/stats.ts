// `autoloop stats`: per preset, how its runs went and what they cost, from the journal (pure).
// A run without a terminal record (running, or crashed) is counted apart from finished ones.
import { fieldText, type JournalRecord } from "../../journal/codec.js";
import { stopReasonClass } from "../../journal/stop-reasons.js";
import { runUsage } from "./usage.js";

export interface PresetStats {
  preset: string;
  /** Runs with a terminal record. */
  runs: number;
  completed: number;
  failed: number;
  stopped: number;
  interrupted: number;
  /** Runs with a `loop.start` and no terminal record (running, or crashed). */
  unfinished: number;
  /** completed / runs, 0-1; undefined with no finished run. */
  success_rate: number | undefined;
  mean_iterations: number | undefined;
  mean_duration_s: number | undefined;
  /** The known cost of every run of the preset, finished or not. */
  cost_usd: number;
  /** Runs with at least one iteration of unknown cost. */
  runs_with_unknown_cost: number;
}

interface RunFacts {
  preset: string;
  startedAt: number;
  endedAt?: number;
  outcome?: "completed" | "failed" | "stopped" | "interrupted";
  iterations: number;
}

export function presetStats(records: readonly JournalRecord[]): PresetStats[] {
  const runs = new Map<string, RunFacts>();
  for (const r of records) {
    if (r.shape !== "system" || r.run === "") continue;
    if (r.topic === "loop.start") {
      runs.set(r.run, {
        preset: fieldText(r, "preset") || "(unknown)",
        startedAt: Date.parse(r.ts),
        iterations: 0,
      });
      continue;
    }
    const run = runs.get(r.run);
    if (run === undefined) continue;
    if (r.topic === "iteration.finish") run.iterations++;
    else if (r.topic === "loop.complete" || r.topic === "loop.stop") {
      run.endedAt = Date.parse(r.ts);
      run.outcome =
        r.topic === "loop.complete" ? "completed" : stopReasonClass(fieldText(r, "reason"));
    }
  }
  const usage = new Map(runUsage(records).map((u) => [u.run, u]));
  const byPreset = new Map<string, { facts: RunFacts[]; ids: string[] }>();
  for (const [id, facts] of runs) {
    const group = byPreset.get(facts.preset) ?? { facts: [], ids: [] };
    group.facts.push(facts);
    group.ids.push(id);
    byPreset.set(facts.preset, group);
  }
  const mean = (values: number[]) =>
    values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;
  return [...byPreset]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([preset, { facts, ids }]) => {
      const finished = facts.filter((f) => f.outcome !== undefined);
      const count = (o: RunFacts["outcome"]) => finished.filter((f) => f.outcome === o).length;
      const durations = finished
        .map((f) => ((f.endedAt ?? Number.NaN) - f.startedAt) / 1000)
        .filter((d) => Number.isFinite(d) && d >= 0);
      const used = ids.map((id) => usage.get(id)).filter((u) => u !== undefined);
      return {
        preset,
        runs: finished.length,
        completed: count("completed"),
        failed: count("failed"),
        stopped: count("stopped"),
        interrupted: count("interrupted"),
        unfinished: facts.length - finished.length,
        success_rate: finished.length === 0 ? undefined : count("completed") / finished.length,
        mean_iterations: mean(finished.map((f) => f.iterations)),
        mean_duration_s: mean(durations),
        cost_usd: Math.round(used.reduce((a, u) => a + u.cost_usd, 0) * 1e6) / 1e6,
        runs_with_unknown_cost: used.filter((u) => u.unpriced_iterations > 0).length,
      };
    });
}
