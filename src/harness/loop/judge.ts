// What one finished iteration means for the run, decided without side effects: stop (and
// why), a gate refusal to journal, a note for the next prompt, and the stall counter.
import type { FieldValue } from "../../journal/codec.js";

/**
 * How the run ends. `at`: the terminal record's `iteration` when it is not the last completed
 * one (a metareview's verdict names the iteration it ran before, as the public autoloop does).
 */
export type Terminal =
  | { complete: true; reason: string; at?: number }
  | { complete: false; reason: string; fields: Record<string, FieldValue>; at?: number };

/** Consecutive iterations with the same output and events (stall detection). */
export interface StallState {
  /** The last iteration's output and events, compared whole (no digest to collide). */
  signature: string;
  identical: number;
}

/** The next prompt's note when required events are still missing; undefined when none is. */
export function missingRequiredNote(
  required: readonly string[],
  seen: ReadonlySet<string>,
): string | undefined {
  const missing = required.filter((e) => !seen.has(e));
  return missing.length === 0
    ? undefined
    : `Completion refused: required events not yet emitted: ${missing.join(", ")}.`;
}

/**
 * The completion gate for a completion claimed outside an emit (the completion promise, a
 * metareview's EXIT): open tasks refuse it (a `task.gate` to journal), else missing required
 * events (a note for the next prompt); undefined when it passes.
 */
export function completionGate(
  openTasks: () => string[],
  required: readonly string[],
  seen: ReadonlySet<string>,
): { openTasks: string[] } | { note: string } | undefined {
  const open = openTasks();
  if (open.length > 0) return { openTasks: open };
  const note = missingRequiredNote(required, seen);
  return note === undefined ? undefined : { note };
}

export interface IterationFacts {
  iteration: number;
  /** How the agent ended: `exited` with its code, or timed out, interrupted, not spawned. */
  result:
    | { kind: "exited"; exitCode: number }
    | { kind: "timed_out" | "interrupted" | "spawn_failed" };
  output: string;
  /** Events the agent emitted in this iteration, in order. */
  emitted: ReadonlyArray<{ topic: string; payload: string }>;
  /** Every topic the run has seen so far (required events). */
  seenTopics: ReadonlySet<string>;
  /** Ids of the tasks that block completion; asked only when completion is claimed. */
  openTasks: () => string[];
  eventLoop: {
    completion_event: string;
    completion_promise: string;
    required_events: readonly string[];
    stall_iterations: number;
  };
  stall: StallState;
}

export interface Judgement {
  /** Stop with this terminal, go on, or stop because the agent failed (its words decide why). */
  next: Terminal | "continue" | "agent_failed";
  /** Completion claimed with these tasks open: journal a `task.gate` refusal. */
  gate?: { openTasks: string[] };
  /** Said to the agent in the next prompt ("" for nothing). */
  completionNote: string;
  stall: StallState;
}

const TAIL_CHARS = 500;

/** The last `max` characters of `text`. */
export function tail(text: string, max: number): string {
  return text.length > max ? text.slice(text.length - max) : text;
}

export function judgeIteration(f: IterationFacts): Judgement {
  const ev = f.eventLoop;
  const base = { completionNote: "", stall: f.stall };
  if (f.result.kind === "interrupted")
    return {
      ...base,
      next: {
        complete: false,
        reason: "interrupted",
        fields: { completed_iterations: String(f.iteration) },
      },
    };
  if (f.result.kind === "timed_out")
    return {
      ...base,
      next: {
        complete: false,
        reason: "backend_timeout",
        fields: { iteration: String(f.iteration), output_tail: tail(f.output, TAIL_CHARS) },
      },
    };
  if (f.result.kind !== "exited" || f.result.exitCode !== 0)
    return { ...base, next: "agent_failed" };

  let completionNote = "";
  let gate: Judgement["gate"];
  if (f.emitted.some((r) => r.topic === ev.completion_event)) {
    // Its open tasks were refused when it was emitted (emit.ts): only required events remain.
    const refused = missingRequiredNote(ev.required_events, f.seenTopics);
    if (refused === undefined)
      return { ...base, next: { complete: true, reason: "completion_event" } };
    completionNote = refused;
  } else if (f.output.includes(ev.completion_promise)) {
    const held = completionGate(f.openTasks, ev.required_events, f.seenTopics);
    if (held === undefined)
      return { ...base, next: { complete: true, reason: "completion_promise" } };
    if ("openTasks" in held) gate = held;
    else completionNote = held.note;
  }

  // Kept as text: loading node:crypto would slow a harness start, and the output is bounded.
  const signature = `${f.output}\u0000${JSON.stringify(f.emitted.map((r) => [r.topic, r.payload]))}`;
  const identical = signature === f.stall.signature ? f.stall.identical + 1 : 1;
  const stall = { signature, identical };
  const judged = { completionNote, stall, ...(gate && { gate }) };
  if (ev.stall_iterations > 0 && identical >= ev.stall_iterations)
    return {
      ...judged,
      next: {
        complete: false,
        reason: "stalled",
        fields: {
          completed_iterations: String(f.iteration),
          identical_outputs: String(identical),
          stall_iterations: String(ev.stall_iterations),
        },
      },
    };
  return { ...judged, next: "continue" };
}
