// Where a notification goes: its incident file, and (for pages, reminders and resolved
// notices) a message in the durable outbox for the schedule's channels. A page that opens a
// new incident goes out first and its file is written a moment later (named in advance).
import type { Logger } from "pino";
import { isActive } from "../incidents/record.js";
import type { IncidentStore } from "../incidents/store.js";
import type { CronConfig } from "../scheduler/config/config.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import { channelsFor, pagingChannels } from "./alert-routing.js";
import { AFTER_SEND_MS, type Notification } from "./alert-state.js";
import { composeMessage, goesToChannels } from "./compose-alert.js";
import type { RunState } from "./detect/run-state.js";
import { type IncidentRef, type PlannedIncident, planOpen, syncIncident } from "./incident-sync.js";
import { deliveryFailedMessage } from "./outbox/delivery-failed.js";
import type { Outbox } from "./outbox/outbox.js";

export interface AlertDeliveryDeps {
  config: CronConfig;
  log: Logger;
  outbox: Outbox;
  incidents: IncidentStore;
  run(id: string): RunState | undefined;
  schedule(name: string): Schedule | undefined;
  /** The pull request the run, or else its schedule, delivered (the scheduler's ledger). */
  pullRequest?(schedule: string | undefined, run: string | undefined): string | undefined;
  /** Told when incident files were written after their pages (counts may have changed). */
  onIncidentsWritten?: () => void;
}

export class AlertDelivery {
  private readonly planned: PlannedIncident[] = [];
  private writing: NodeJS.Timeout | undefined;

  constructor(private readonly deps: AlertDeliveryDeps) {}

  /**
   * Writes the incident files of pages already sent. Every delivery does this first, so a
   * later notification of the same alert finds its incident; stop and `--once` do it last.
   */
  writePlannedIncidents(): void {
    clearTimeout(this.writing);
    this.writing = undefined;
    if (this.planned.length === 0) return;
    for (const plan of this.planned.splice(0)) {
      try {
        const written = plan.write();
        if (written.slug !== plan.ref.slug)
          this.deps.log.warn(
            { fingerprint: plan.fingerprint, named: plan.ref.slug, incident: written.slug },
            "monitor: the incident a page named was taken meanwhile; opened under another name",
          );
      } catch (err) {
        this.deps.log.error(
          { err, fingerprint: plan.fingerprint },
          "monitor: incident update failed",
        );
      }
    }
    this.deps.onIncidentsWritten?.();
  }

  /**
   * A run joining a group whose incident an operator already resolved is news again: it
   * opens a new incident and pages, instead of a line in a closed file.
   */
  private afterOperatorResolve(n: Notification): Notification {
    if (n.kind !== "update") return n;
    try {
      const incident = this.deps.incidents.findByFingerprint(n.fingerprint);
      if (incident === undefined || isActive(incident)) return n;
    } catch {
      return n;
    }
    return { ...n, kind: "firing" };
  }

  deliver(notification: Notification): void {
    const { log, outbox } = this.deps;
    // Incidents of pages already sent first: this notification may be about one of them.
    this.writePlannedIncidents();
    const n = this.afterOperatorResolve(notification);
    const c = n.condition;
    const schedule = c.schedule === undefined ? undefined : this.deps.schedule(c.schedule);
    let incident: IncidentRef | undefined;
    let planned: PlannedIncident | undefined;
    try {
      planned = goesToChannels(n) ? planOpen(this.deps.incidents, n) : undefined;
      incident = planned?.ref ?? syncIncident(this.deps.incidents, n);
    } catch (err) {
      log.error({ err, fingerprint: n.fingerprint }, "monitor: incident update failed");
    }
    if (!goesToChannels(n)) {
      log.info(
        {
          alert: n.kind,
          fingerprint: n.fingerprint,
          schedule: c.schedule,
          incident: incident?.slug,
        },
        n.kind === "update"
          ? `incident ${incident?.slug ?? n.fingerprint}: ${(n.members ?? []).map((m) => m.note).join("; ")}`
          : `alert expired: ${n.note ?? c.summary}`,
      );
      return;
    }
    const message = composeMessage(n, {
      run: c.run === undefined ? undefined : this.deps.run(c.run),
      schedule,
      timezone: this.deps.config.defaults.timezone,
      incident,
      configFile: this.deps.config.file,
      pullRequest: this.pullRequestOf(c.schedule, c.run),
    });
    const all = channelsFor(this.deps.config, outbox.channelNames(), schedule);
    // An ack only keeps the paging services' alert in step; mail and chat learned it already.
    const paging = new Set(pagingChannels(this.deps.config));
    const channels = n.kind === "acknowledged" ? all.filter((name) => paging.has(name)) : all;
    if (n.kind === "acknowledged" && channels.length === 0) return;
    if (planned !== undefined) {
      this.planned.push(planned);
      // Once the page's request is out.
      this.writing ??= setTimeout(() => this.writePlannedIncidents(), AFTER_SEND_MS);
    }
    outbox.enqueue(message, channels);
    log.info(
      {
        alert: n.kind,
        kind: c.kind,
        fingerprint: n.fingerprint,
        schedule: c.schedule,
        run: c.run,
        incident: incident?.slug,
        channels,
      },
      `alert ${n.kind}: ${c.summary}`,
    );
  }

  /** A ledger that cannot be read costs the page its link, never the page. */
  private pullRequestOf(schedule: string | undefined, run: string | undefined) {
    try {
      return this.deps.pullRequest?.(schedule, run);
    } catch (err) {
      this.deps.log.warn({ err, schedule, run }, "monitor: the run's pull request is unreadable");
      return undefined;
    }
  }

  /** An alert a channel gave up on: told through every other channel. */
  onDead(dead: Parameters<typeof deliveryFailedMessage>[0]): void {
    const { log, outbox } = this.deps;
    const others = outbox.channelNames().filter((name) => name !== dead.channel);
    log.error(
      { channel: dead.channel, fingerprint: dead.message.fingerprint, error: dead.error },
      others.length > 0 ? "alert undeliverable; telling the other channels" : "alert undeliverable",
    );
    if (others.length > 0) outbox.enqueue(deliveryFailedMessage(dead), others);
  }
}
