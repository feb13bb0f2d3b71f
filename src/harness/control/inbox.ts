// The run's side of `control guide` and `control interrupt`: on SIGUSR1 (and at every
// iteration's start) the run reads the requests it has not seen, acks each in the status
// file, and stops the agent's current turn when asked to. Guidance itself is in the journal
// (written by whoever sent it) and reaches the next prompt from there.
import {
  appendStatus,
  type ControlPaths,
  type ControlRequest,
  type ControlStatus,
  RequestReader,
} from "./requests.js";

export class ControlInbox {
  private readonly reader: RequestReader;

  constructor(
    private readonly paths: ControlPaths,
    private readonly runId: string,
    /** Stops the agent's current turn (the loop then starts the next iteration). */
    private readonly interrupt: (request: ControlRequest) => void,
  ) {
    this.reader = new RequestReader(paths);
  }

  /** Handles the requests appended since the last call. */
  drain(): void {
    for (const r of this.reader.next()) {
      if (r.runId !== this.runId) continue;
      const ack = (state: ControlStatus["state"], detail: string) =>
        appendStatus(this.paths, {
          id: r.id,
          runId: r.runId,
          verb: r.verb,
          state,
          at: new Date().toISOString(),
          detail,
        });
      if (r.verb === "respond") ack("ignored", "respond is handled by the human-ask poll");
      else if (
        r.verb === "interrupt" ||
        (r.payload as { interrupt?: unknown }).interrupt === true
      ) {
        this.interrupt(r);
        ack("applied", `${r.verb}: the agent's current turn is stopped`);
      } else ack("applied", "guidance appended");
    }
  }
}
