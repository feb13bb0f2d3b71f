// Where the monitor keeps its state under state_dir; the daemon, `monitor` and the CLI agree here.
import { join } from "node:path";
import { alertsPath } from "./alert-state.js";

export interface MonitorPaths {
  /** Follow positions of every journal. */
  positions: string;
  /** The run tracker's snapshot, saved before the positions it matches. */
  tracker: string;
  alerts: string;
  /** Silences and acks: written by the CLI, read by the monitor. */
  silences: string;
  incidents: string;
  /** The daemon's (or `monitor`'s) durable outbox. */
  outbox: string;
  /** A separate outbox for `alert test`, so the CLI never appends to the daemon's file. */
  cliOutbox: string;
}

export function monitorPaths(stateDir: string): MonitorPaths {
  return {
    positions: join(stateDir, "monitor", "positions.json"),
    tracker: join(stateDir, "monitor", "tracker.json"),
    alerts: alertsPath(stateDir),
    silences: join(stateDir, "monitor", "silences.json"),
    incidents: join(stateDir, "incidents"),
    outbox: join(stateDir, "outbox.jsonl"),
    cliOutbox: join(stateDir, "outbox-cli.jsonl"),
  };
}
