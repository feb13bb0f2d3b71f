// The agent call under way (an iteration's or a metareview's), so that `control interrupt`
// (or guidance that interrupts) stops it, and the loop learns afterwards who stopped it.
import type { ControlRequest } from "../control/requests.js";

export class TurnControl {
  private turn: AbortController | undefined;
  private interruptedBy: ControlRequest | undefined;

  /** An operator's interrupt: stops the call under way, if any. */
  interrupt(request: ControlRequest): void {
    if (this.turn === undefined || this.turn.signal.aborted) return;
    this.interruptedBy = request;
    this.turn.abort();
  }

  /** Starts a call; its signal aborts on the run's signal or an interrupt. */
  begin(runSignal: AbortSignal): AbortSignal {
    this.turn = new AbortController();
    return AbortSignal.any([runSignal, this.turn.signal]);
  }

  /** Ends the call: the operator's request that stopped it (none when the run was aborted). */
  end(runSignal: AbortSignal): ControlRequest | undefined {
    this.turn = undefined;
    const by = runSignal.aborted ? undefined : this.interruptedBy;
    this.interruptedBy = undefined;
    return by;
  }
}
