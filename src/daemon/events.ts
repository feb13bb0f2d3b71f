// What a running daemon announces, as typed events: metrics, the in-process monitor and
// tests listen here rather than reaching into the daemon.
import type { RunOutcome } from "../launch/outcome.js";
import type { SkipCause, Trigger } from "../ledger/events.js";
import type { FieldProblem } from "../util/errors.js";

export interface DaemonEvents {
  fire: [{ schedule: string; slot: Date; runId: string; trigger: Trigger; latenessMs: number }];
  skipped: [{ schedule: string; slot: Date; runId: string; cause: SkipCause; detail: string }];
  queued: [{ schedule: string; slot: Date; why: string }];
  finished: [{ schedule: string; runId: string; outcome: RunOutcome }];
  missed: [{ schedule: string; slots: Date[]; reason: "daemon_down" | "late_wakeup" }];
  invalid: [{ problems: FieldProblem[]; keptPrevious: string[] }];
  loaded: [{ count: number }];
  tick: [{ at: Date }];
}
