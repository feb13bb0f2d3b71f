// A run's artifacts as projections of the journal: its scratchpad (what each iteration did),
// an iteration's prompt or output, its metrics, and a chain's steps. Pure: records in, data out.
import { fieldText, type JournalRecord } from "../../journal/codec.js";
import { chainStatusOf, stopReasonClass } from "../../journal/stop-reasons.js";

export interface IterationView {
  iteration: number;
  suggestedRoles: string;
  recentEvent: string;
  /** Events the agent emitted in it, in order. */
  events: Array<{ topic: string; payload: string; ts: string }>;
  exitCode: string;
  elapsedS: string;
  output: string;
  refusedCompletions: number;
  invalidEvents: number;
}

const numberOf = (r: JournalRecord) => Number(r.iteration ?? 0);

/** Every iteration of the run, from its iteration.* and agent records. */
export function scratchpad(records: readonly JournalRecord[]): IterationView[] {
  const byIteration = new Map<number, IterationView>();
  const view = (n: number) => {
    let v = byIteration.get(n);
    if (v === undefined) {
      v = {
        iteration: n,
        suggestedRoles: "",
        recentEvent: "",
        events: [],
        exitCode: "",
        elapsedS: "",
        output: "",
        refusedCompletions: 0,
        invalidEvents: 0,
      };
      byIteration.set(n, v);
    }
    return v;
  };
  for (const r of records) {
    const n = numberOf(r);
    if (!(n >= 1)) continue;
    if (r.shape === "agent") {
      view(n).events.push({ topic: r.topic, payload: r.payload, ts: r.ts });
      continue;
    }
    if (r.topic === "iteration.start") {
      view(n).suggestedRoles = fieldText(r, "suggested_roles");
      view(n).recentEvent = fieldText(r, "recent_event");
    } else if (r.topic === "iteration.finish") {
      view(n).exitCode = fieldText(r, "exit_code");
      view(n).elapsedS = fieldText(r, "elapsed_s");
      view(n).output = fieldText(r, "output");
    } else if (r.topic === "task.gate") view(n).refusedCompletions += 1;
    else if (r.topic === "event.invalid") view(n).invalidEvents += 1;
  }
  return [...byIteration.values()].sort((a, b) => a.iteration - b.iteration);
}

/** The prompt an iteration was given (the last iteration's when `iteration` is unset). */
export function promptOf(records: readonly JournalRecord[], iteration?: number): IterationText {
  return textOf(records, "iteration.start", "prompt", iteration);
}

/** What the agent printed in an iteration (the last iteration's when `iteration` is unset). */
export function outputOf(records: readonly JournalRecord[], iteration?: number): IterationText {
  return textOf(records, "iteration.finish", "output", iteration);
}

export interface IterationText {
  iteration: number;
  text: string;
}

function textOf(
  records: readonly JournalRecord[],
  topic: string,
  field: string,
  iteration: number | undefined,
): IterationText {
  let found: IterationText | undefined;
  for (const r of records) {
    if (r.topic !== topic) continue;
    const n = numberOf(r);
    if (iteration === undefined || n === iteration)
      found = { iteration: n, text: fieldText(r, field) };
  }
  if (found === undefined)
    throw new Error(
      iteration === undefined
        ? `no ${topic} record`
        : `no ${topic} record for iteration ${iteration}`,
    );
  return found;
}

export interface RunMetrics {
  run: string;
  preset: string;
  trigger: string;
  iterations: number;
  outcome: string;
  reason: string;
  startedAt: string;
  endedAt: string;
  wallSeconds: number | undefined;
  agentSeconds: number;
  /** Harness time beyond the agent's, per iteration (seconds). */
  overheadPerIteration: number | undefined;
  eventsByTopic: Record<string, number>;
  refusedCompletions: number;
  invalidEvents: number;
  nonZeroExits: number;
}

export function metrics(run: string, records: readonly JournalRecord[]): RunMetrics {
  const start = records.find((r) => r.topic === "loop.start");
  const end = records.findLast((r) => r.topic === "loop.complete" || r.topic === "loop.stop");
  const finishes = records.filter((r) => r.topic === "iteration.finish");
  const agentSeconds = finishes.reduce((s, r) => s + (Number(fieldText(r, "elapsed_s")) || 0), 0);
  const wall = start && end ? (Date.parse(end.ts) - Date.parse(start.ts)) / 1000 : undefined;
  const eventsByTopic: Record<string, number> = {};
  for (const r of records)
    if (r.shape === "agent") eventsByTopic[r.topic] = (eventsByTopic[r.topic] ?? 0) + 1;
  const count = (topic: string) => records.filter((r) => r.topic === topic).length;
  return {
    run,
    preset: start ? fieldText(start, "preset") : "",
    trigger: start ? fieldText(start, "trigger") : "",
    iterations: finishes.length,
    outcome:
      end === undefined
        ? "running"
        : end.topic === "loop.complete"
          ? "completed"
          : stopReasonClass(fieldText(end, "reason")),
    reason: end ? fieldText(end, "reason") : "",
    startedAt: start?.ts ?? "",
    endedAt: end?.ts ?? "",
    wallSeconds: wall,
    agentSeconds: Math.round(agentSeconds * 1000) / 1000,
    overheadPerIteration:
      wall === undefined || finishes.length === 0
        ? undefined
        : Math.round(((wall - agentSeconds) / finishes.length) * 1000) / 1000,
    eventsByTopic,
    refusedCompletions: count("task.gate"),
    invalidEvents: count("event.invalid"),
    nonZeroExits: finishes.filter((r) => fieldText(r, "exit_code") !== "0").length,
  };
}

export interface ChainView {
  chainRun: string;
  name: string;
  objective: string;
  status: string;
  reason: string;
  steps: Array<{
    step: number;
    preset: string;
    runId: string;
    outcome: string;
    reason: string;
    iterations: string;
  }>;
}

/** A chain's steps and how each ended, from its chain.* records. */
export function chainOf(chainRun: string, records: readonly JournalRecord[]): ChainView {
  const mine = records.filter((r) => r.run === chainRun && r.topic.startsWith("chain."));
  const start = mine.find((r) => r.topic === "chain.start");
  if (start === undefined) throw new Error(`no chain.start record for ${chainRun}`);
  const done = mine.find((r) => r.topic === "chain.complete");
  const steps = new Map<number, ChainView["steps"][number]>();
  for (const r of mine) {
    if (r.topic !== "chain.step.start" && r.topic !== "chain.step.finish") continue;
    const step = Number(fieldText(r, "step"));
    const s = steps.get(step) ?? {
      step,
      preset: fieldText(r, "preset"),
      runId: fieldText(r, "run_id"),
      outcome: "running",
      reason: "",
      iterations: "",
    };
    if (r.topic === "chain.step.finish") {
      s.outcome = fieldText(r, "outcome");
      s.reason = fieldText(r, "reason") || fieldText(r, "stop_reason");
      s.iterations = fieldText(r, "iterations");
    }
    steps.set(step, s);
  }
  return {
    chainRun,
    name: fieldText(start, "name"),
    objective: fieldText(start, "objective"),
    status: done ? chainStatusOf(done) : "running",
    reason: done ? fieldText(done, "reason") : "",
    steps: [...steps.values()].sort((a, b) => a.step - b.step),
  };
}
