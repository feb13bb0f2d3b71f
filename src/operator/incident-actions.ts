// Acknowledging and resolving an incident: one code path for the CLI, the status page and
// the MCP server. Either also acks the alert behind the incident, so its reminders stop.
import type { Incident } from "../incidents/record.js";
import { IncidentStore } from "../incidents/store.js";
import { monitorPaths } from "../monitor/paths.js";
import { SilenceStore } from "../monitor/silences.js";

export interface IncidentActionResult {
  incident: Incident;
  /** One line for the operator, e.g. "acknowledged gate-stuck-nightly; reminders for … stop". */
  message: string;
}

export function incidentStore(stateDir: string): IncidentStore {
  return new IncidentStore(monitorPaths(stateDir).incidents);
}

function ackAlert(stateDir: string, incident: Incident, now: Date): string {
  if (incident.fingerprint === null) return "";
  new SilenceStore(monitorPaths(stateDir).silences).ack(incident.fingerprint, now);
  return `; reminders for ${incident.fingerprint} stop`;
}

/** You are on it: status acknowledged, reminders stop. `query` is a slug or a unique part of one. */
export function acknowledgeIncident(
  stateDir: string,
  query: string,
  note = "",
  now = new Date(),
): IncidentActionResult {
  const incident = incidentStore(stateDir).acknowledge(query, note);
  return { incident, message: `acknowledged ${incident.slug}${ackAlert(stateDir, incident, now)}` };
}

/** Done: status resolved, reminders stop. */
export function resolveIncident(
  stateDir: string,
  query: string,
  summary = "",
  now = new Date(),
): IncidentActionResult {
  const incident = incidentStore(stateDir).resolve(query, summary || "Resolved by an operator.");
  return { incident, message: `resolved ${incident.slug}${ackAlert(stateDir, incident, now)}` };
}
