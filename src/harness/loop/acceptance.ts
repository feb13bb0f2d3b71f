// The completion lifecycle's words, decided without side effects: which completions are an
// agent's claim (parked, then gated), and what a held claim tells the agent's next prompt.

/** Completions an agent claimed; a metareview's verdict skips the lifecycle, as in public. */
const CLAIMS = new Set(["completion_event", "completion_promise"]);

export const isClaim = (reason: string): boolean => CLAIMS.has(reason);

/** A command of the gate that did not pass: the end of its output is what the agent sees. */
export interface FailedCheck {
  command: string;
  exitCode: number;
  timedOut: boolean;
  tail: string;
  /** The criterion the command checks, for a criterion's check. */
  criterion?: string;
}

/** Why a claim is held, as the public `completion.held` names it. */
export type HoldCause = "acceptance" | "intent";

/** The guidance the next prompt carries: the claim was refused, and by which commands. */
export function heldGuidance(cause: HoldCause, failed: readonly FailedCheck[]): string {
  const lines = failed.map(
    (f) =>
      `- ${f.criterion === undefined ? "" : `${JSON.stringify(f.criterion)}: `}\`${f.command}\` exited ${f.exitCode}${f.timedOut ? " (timed out)" : ""}:\n${f.tail}`,
  );
  const why =
    cause === "acceptance"
      ? "Completion was blocked: the harness acceptance gate failed. Do not announce completion until every verify command passes."
      : "Completion was blocked: the work does not meet the preset's acceptance criteria, even if its tests pass. Meet them before claiming completion.";
  return `${why} Failing command(s):\n\n${lines.join("\n\n")}`;
}
