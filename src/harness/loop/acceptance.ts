// The completion lifecycle the public autoloop journals before `loop.complete`: the agent's
// claim parked (`completion.provisional`, `awaiting_acceptance`), then released
// (`completion.accepted`). No acceptance gate is configurable here yet, so the release is
// immediate, as the public harness's is without `verify_cmds`.
import type { RunJournal } from "./run-journal.js";

/** Completions an agent claimed; a metareview's verdict skips the lifecycle, as in public. */
const CLAIMS = new Set(["completion_event", "completion_promise"]);

export function journalAcceptance(system: RunJournal["system"], iteration: number, reason: string) {
  if (!CLAIMS.has(reason)) return;
  system("completion.provisional", iteration, { state: "awaiting_acceptance", reason });
  // The public `release.ack` lives in the run's state dir, which the run's agent can write:
  // it would stand for a human without being one, so no acknowledgement is read from there.
  system("completion.accepted", iteration, { state: "accepted", human_ack: false });
}
