// Where the monitor keeps its state under state_dir; the daemon, `monitor` and the CLI agree here.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
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
  /** When a monitor first watched this state dir: slots are expected from then on. */
  watchingSince: string;
  /** The pull request deliveries (the daemon's and a daemonless `fire`'s queue file). */
  deliveries: string;
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
    watchingSince: join(stateDir, "monitor", "watching-since"),
    deliveries: join(stateDir, "deliveries.jsonl"),
  };
}

/**
 * When a monitor first watched this state dir (an ISO line, written once), so that a
 * `monitor --once` run by a timer still knows a schedule has been silent since before it.
 */
export function watchingSince(paths: MonitorPaths, now: Date): Date {
  try {
    const at = Date.parse(readFileSync(paths.watchingSince, "utf8").trim());
    if (Number.isFinite(at)) return new Date(at);
  } catch {}
  try {
    mkdirSync(dirname(paths.watchingSince), { recursive: true, mode: 0o700 });
    writeFileSync(paths.watchingSince, `${now.toISOString()}\n`, { mode: 0o600 });
  } catch {
    // A read-only state dir: this process's start will do.
  }
  return now;
}
