// Waiting for a human (the public autoloop's human-in-the-loop contract): after an agent
// emitted the ask event, the run looks for a `respond` request naming its question in the
// requests file of its private folder (never the run's own `control/`), every `ask_poll_ms`,
// until `ask_timeout`. Only bytes appended since the last look are read, and nothing runs in
// between: a waiting run costs no CPU.
import { appendStatus, type ControlPaths, type ControlRequest, RequestReader } from "./requests.js";

/** `ask_<run>_<iteration>`, as the public autoloop names a question. */
export function questionIdFor(runId: string, iteration: number): string {
  return `ask_${runId}_${iteration}`;
}

export type AskOutcome =
  | { kind: "answered"; answer: string; requestId: string; by?: string }
  | { kind: "timeout" }
  | { kind: "aborted" };

export interface AwaitAnswer {
  paths: ControlPaths;
  runId: string;
  questionId: string;
  timeoutMs: number;
  pollMs: number;
  signal: AbortSignal;
}

/** The request that answers `questionId` of `runId`, if it is one. */
export function answerIn(r: ControlRequest, runId: string, questionId: string): string | undefined {
  if (r.verb !== "respond" || r.runId !== runId) return undefined;
  const { questionId: q, answer } = r.payload as { questionId?: unknown; answer?: unknown };
  return q === questionId && typeof answer === "string" ? answer : undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Waits for the answer. A request written before the question (an operator who answered
 * early) counts: the requests file is read from its start.
 */
export async function awaitAnswer(o: AwaitAnswer): Promise<AskOutcome> {
  const reader = new RequestReader(o.paths);
  const deadline = Date.now() + Math.max(0, o.timeoutMs);
  for (;;) {
    if (o.signal.aborted) return { kind: "aborted" };
    for (const r of reader.next()) {
      const answer = answerIn(r, o.runId, o.questionId);
      if (answer === undefined) continue;
      appendStatus(o.paths, {
        id: r.id,
        runId: r.runId,
        verb: "respond",
        state: "applied",
        at: new Date().toISOString(),
        detail: "delivered to human-ask",
      });
      return {
        kind: "answered",
        answer,
        requestId: r.id,
        ...(r.by !== undefined && { by: r.by }),
      };
    }
    const left = deadline - Date.now();
    if (left <= 0) return { kind: "timeout" };
    await sleep(Math.min(o.pollMs, left), o.signal);
  }
}
