// The monitor as a running service: follows journals, folds them into run states, detects
// conditions on every batch and on a timer, advances the alert state, opens and closes
// incidents, and enqueues alerts in the durable outbox (enqueue first, then save the state).
import { join } from "node:path";
import type { Logger } from "pino";
import type { Condition } from "../detect/conditions.js";
import { type DetectFacts, detectRun, readRunTasks } from "../detect/detectors.js";
import { MonitorFacts } from "../detect/facts.js";
import { groupConditions, type Recovery } from "../detect/grouping.js";
import type { RunState } from "../detect/run-state.js";
import { RunTracker } from "../detect/run-tracker.js";
import type { ScheduleStreak } from "../detect/schedule-streak.js";
import { scheduleConditions } from "../detect/schedule-trouble.js";
import { StandaloneScheduler } from "../detect/standalone.js";
import { type ThresholdsFor, thresholdsBySchedule } from "../detect/thresholds.js";
import { isActive } from "../incidents/record.js";
import { IncidentStore } from "../incidents/store.js";
import { JournalFollower } from "../journal/follower.js";
import { deliveryFailedMessage } from "../outbox/delivery-failed.js";
import type { Outbox } from "../outbox/outbox.js";
import { readPauseState } from "../schedules/pause-state.js";
import type { Schedule } from "../schedules/schedule-file.js";
import { composeMessage, goesToChannels } from "./alert-message.js";
import { type AlertRecord, AlertState, type Ending, type Notification } from "./alert-state.js";
import { syncIncident } from "./incident-sync.js";
import { journalPaths } from "./journal-set.js";
import { type MonitorPaths, monitorPaths, watchingSince } from "./paths.js";
import type { MonitorServiceOptions, MonitorStatus, OnceResult } from "./service-options.js";
import {
  channelsFor,
  drainOutbox,
  loadTracker,
  openOutbox,
  saveTracker,
  saveTrackerInBackground,
} from "./service-setup.js";
import { OperatorStore } from "./silences.js";

export type { MonitorServiceOptions, MonitorStatus, OnceResult } from "./service-options.js";

export class MonitorService {
  readonly paths: MonitorPaths;
  readonly outbox: Outbox;
  readonly incidents: IncidentStore;
  private readonly log: Logger;
  private readonly now: () => Date;
  private readonly tracker: RunTracker;
  private readonly follower: JournalFollower;
  private readonly operators: OperatorStore;
  private readonly facts: MonitorFacts;
  private readonly standalone: StandaloneScheduler | undefined;
  private alertState: AlertState;
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private started = false;
  private trackerDirty = false;
  /** Runs with records since the last evaluation; only their facts are re-read on a batch. */
  private readonly touched = new Set<string>();
  /**
   * Each run's conditions as of the last pass that looked at it: a full pass looks at every
   * run, a batch-triggered one only at the touched runs. Undefined: the next pass is full.
   */
  private conditionsByRun: Map<string, Condition[]> | undefined;
  /** Schedule conditions of the last full pass: journal lines never change them. */
  private scheduleConditions: Condition[] = [];
  /** Per schedule, its failed runs since the last completed one (ledger, last full pass). */
  private streaks = new Map<string, ScheduleStreak>();
  /** Per schedule, its latest completed run as the journals showed it. */
  private readonly completions = new Map<string, Recovery>();
  /** Wall-clock ms of the last batch-triggered pass (leading-edge coalescing of bursts). */
  private lastSoonAt = Number.NEGATIVE_INFINITY;
  private openIncidents: number | undefined;
  /** The in-process daemon has loaded its schedule files at least once. */
  private daemonLoaded = false;
  private readonly detach: (() => void)[] = [];

  private thresholdsCache:
    | { schedules: ReadonlyMap<string, Schedule>; value: ThresholdsFor }
    | undefined;

  /** Epoch ms of the last evaluation pass: the standalone monitor's /healthz reads it. */
  lastEvaluatedAt: number | undefined;

  constructor(private readonly options: MonitorServiceOptions) {
    const { config, logger, daemon } = options;
    this.log = logger;
    this.now = options.now ?? (() => new Date());
    this.paths = monitorPaths(config.stateDir);
    this.tracker = new RunTracker({}, loadTracker(this.paths, logger));
    this.alertState = this.loadAlertState();
    this.operators = new OperatorStore(this.paths.silences, (m) => logger.warn(m));
    this.incidents = new IncidentStore(this.paths.incidents, { now: this.now });
    this.outbox = openOutbox(config, logger, {
      path: options.outboxPath ?? this.paths.outbox,
      now: () => this.now().getTime(),
      onDead: (dead) => this.onDead(dead),
      onAttempt: options.onAttempt,
      ...(options.channelDeps && { channelDeps: options.channelDeps }),
    });
    this.standalone = daemon ? undefined : new StandaloneScheduler(config, logger);
    this.facts = new MonitorFacts(
      {
        ledger: () => daemon?.ledger ?? this.standalone?.ledger(),
        schedules: () => this.schedules(),
        invalid: () => daemon?.invalidProblems ?? this.standalone?.problems() ?? [],
        configDir: config.dir,
        outputDir: join(config.stateDir, "output"),
        ...(daemon === undefined && {
          expectSlots: {
            pauseState: () => readPauseState(config.stateDir),
            thresholds: () => this.thresholds(),
          },
        }),
        ...(options.isAlive && { isAlive: options.isAlive }),
      },
      watchingSince(this.paths, this.now()),
    );
    this.follower = new JournalFollower({
      positionsFile: this.paths.positions,
      onLines: (path, batch) => {
        this.tracker.apply(path, batch);
        for (const r of batch.records) this.touched.add(r.run);
        this.trackerDirty = true;
        this.evaluateSoon();
      },
      beforeFlush: () => {
        if (!this.trackerDirty) return;
        const text = this.tracker.snapshotText();
        this.trackerDirty = false;
        return saveTrackerInBackground(this.paths, text).catch((err: unknown) => {
          this.trackerDirty = true;
          throw err;
        });
      },
      onReset: (path, reason) => {
        this.log.info({ journal: path, reason }, "monitor: journal replaced; reading it again");
        this.tracker.resetJournal(path);
      },
      onError: (path, err) =>
        this.log.error({ journal: path, err }, "monitor: journal read failed"),
      discover: () => this.journalPaths(),
      pollIntervalMs: options.follower?.pollIntervalMs ?? 1000,
      // Under steady load every wake-up waits out the debounce: it is most of the detection
      // latency (50 ms measured p50 44 ms, p99 150 ms on 1,000 busy journals).
      debounceMs: options.follower?.debounceMs ?? 20,
      ...(options.follower?.deps && { deps: options.follower.deps }),
    });
    for (const problem of this.follower.positionProblems) this.log.warn({ problem }, "monitor");
    // Listening from construction on: the daemon announces missed slots as it starts.
    this.attachDaemon();
  }

  /** Follows every journal, evaluates on each batch and every few seconds, delivers alerts. */
  async start(): Promise<void> {
    if (this.started) return;
    if (this.options.once) {
      await this.runOnce();
      return;
    }
    this.started = true;
    this.outbox.start();
    await this.follower.start();
    this.evaluate();
    this.timer = setInterval(() => this.evaluate(), this.options.evaluateEveryMs ?? 5000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.timer);
    clearTimeout(this.soon);
    for (const off of this.detach.splice(0)) off();
    await this.follower.stop();
    saveTracker(this.paths, this.tracker.snapshotText());
    this.alertState.save();
    await this.outbox.close();
  }

  /**
   * One pass over everything: read what is new in every journal, evaluate, and (when not
   * started) deliver, waiting for the outbox to drain for at most `drainMs`.
   */
  async runOnce(drainMs = 30_000): Promise<OnceResult> {
    if (!this.started) for (const path of await this.journalPaths()) this.follower.add(path);
    await this.follower.poll();
    const notifications = this.evaluate();
    const outcomes = this.started
      ? []
      : await drainOutbox(this.outbox, () => this.now().getTime(), drainMs);
    return { notifications, outcomes };
  }

  status(): MonitorStatus {
    const firing = this.alertState
      .list()
      .filter((a) => a.phase === "firing")
      .map((a) => ({
        fingerprint: a.fingerprint,
        kind: a.condition.kind,
        summary: a.condition.summary,
      }));
    return {
      journals: this.follower.status(),
      runs: this.tracker.list().length,
      firing,
      outbox: this.outbox.status(),
      openIncidents: this.openIncidents ?? this.countIncidents(),
    };
  }

  /** Detects, reconciles, and enqueues what is due; returns the notifications sent. */
  evaluate(onlyTouched = false): Notification[] {
    const now = this.now();
    this.lastEvaluatedAt = now.getTime();
    try {
      this.standalone?.refresh(now);
      const thresholds = this.thresholds();
      const deps = { tasksOf: readRunTasks };
      let byRun = this.conditionsByRun;
      let runs: RunState[];
      const full = !onlyTouched || byRun === undefined;
      if (!full && byRun !== undefined) {
        // Only touched runs changed; the others keep the conditions of the last full pass
        // (at most evaluateEveryMs old), so a batch costs its own runs, not all of them.
        runs = [];
        for (const id of this.touched) {
          const run = this.tracker.get(id);
          if (run === undefined) byRun.delete(id);
          else runs.push(run);
        }
      } else {
        this.facts.forget(this.tracker.prune(now));
        runs = this.tracker.list();
        byRun = new Map();
      }
      this.conditionsByRun = undefined; // until this pass succeeds
      this.touched.clear();
      const facts: DetectFacts = full
        ? this.facts.collect(runs, now)
        : { runs: this.facts.collectRuns(runs) };
      for (const run of runs) {
        byRun.set(run.run, detectRun(run, facts, now, thresholds, deps));
        this.noteCompletion(run, facts.runs.get(run.run)?.schedule);
      }
      if (full) {
        this.scheduleConditions = scheduleConditions(facts.schedules ?? {}, thresholds);
        this.streaks = this.facts.streaks();
      }
      this.conditionsByRun = byRun;
      const perRun: Condition[] = [];
      for (const list of byRun.values()) for (const c of list) perRun.push(c);
      const conditions = groupConditions({
        conditions: [...perRun, ...this.scheduleConditions],
        streaks: this.streaks,
        completions: this.completions,
        gateRefusals: (id) => this.tracker.get(id)?.gate?.episodeRefusals ?? 0,
        isScheduled: (name) => !this.schedulesLoaded() || this.schedules().has(name),
      });
      const notifications = this.alertState.reconcile(
        conditions,
        now,
        this.operators.current(),
        (rec) => this.endingOf(rec),
      );
      for (const n of notifications) this.deliver(n);
      // Enqueued first, then saved. Changes that notify nobody (a condition clearing, a
      // resolved alert aging out) wait for the next full pass: serializing every alert on
      // each of ~50 batch passes a second was ~1% of a core.
      if (full || notifications.length > 0) this.alertState.save();
      if (notifications.length > 0) this.openIncidents = undefined;
      return notifications;
    } catch (err) {
      // Nothing saved: reload, so what was not enqueued is decided (and sent) again.
      this.log.error({ err }, "monitor: evaluation failed; will retry");
      this.alertState = this.loadAlertState();
      return [];
    }
  }

  /**
   * A run joining a group whose incident an operator already resolved is news again: it
   * opens a new incident and pages, instead of a line in a closed file.
   */
  private afterOperatorResolve(n: Notification): Notification {
    if (n.kind !== "update") return n;
    try {
      const incident = this.incidents.findByFingerprint(n.fingerprint);
      if (incident === undefined || isActive(incident)) return n;
    } catch {
      return n;
    }
    return { ...n, kind: "firing" };
  }

  /** A run's completion, remembered per schedule: it ends that schedule's failing groups. */
  private noteCompletion(run: RunState, schedule: string | undefined): void {
    if (schedule === undefined || run.terminal?.topic !== "loop.complete") return;
    const known = this.completions.get(schedule);
    if (known === undefined || Date.parse(run.terminal.at) > Date.parse(known.at))
      this.completions.set(schedule, { at: run.terminal.at, run: run.run });
  }

  /** How a firing alert that stopped holding ends: recovery and run ends are facts, not flaps. */
  private endingOf(rec: AlertRecord): Ending | undefined {
    const c = rec.condition;
    const newest = c.group?.members[0]?.at ?? c.occurredAt;
    if (c.group?.by === "schedule" && c.schedule !== undefined) {
      if (this.schedulesLoaded() && !this.schedules().has(c.schedule))
        return { kind: "resolve", note: `schedule ${c.schedule} was removed from the config` };
      const fromLedger = this.streaks.get(c.schedule);
      const candidates: Recovery[] = [];
      if (fromLedger?.lastCompletedAt !== undefined && fromLedger.lastCompletedRun !== undefined)
        candidates.push({ at: fromLedger.lastCompletedAt, run: fromLedger.lastCompletedRun });
      const fromJournal = this.completions.get(c.schedule);
      if (fromJournal !== undefined) candidates.push(fromJournal);
      const recovery = candidates.find((r) => Date.parse(r.at) >= Date.parse(newest));
      if (recovery !== undefined) return { kind: "resolve", note: `run ${recovery.run} completed` };
      return undefined;
    }
    if (c.kind === "schedule_trouble" && c.cause === "missed" && c.slots?.[0] !== undefined) {
      const ledger = this.options.daemon?.ledger ?? this.standalone?.ledger();
      const newest = ledger?.latestRun(c.schedule);
      if (newest !== undefined && Date.parse(newest.slot) >= Date.parse(c.slots[0]))
        return { kind: "resolve", note: `run ${newest.runId} came for the slot` };
    }
    if (c.group?.by === "run" && c.run !== undefined) {
      const run = this.tracker.get(c.run);
      if (run === undefined)
        return {
          kind: "expire",
          note: `run ${c.run} is no longer tracked (it ended over a day ago)`,
        };
      if (run.terminal !== undefined) {
        const how = run.terminal.topic === "loop.complete" ? "completed" : run.terminal.reason;
        return { kind: "resolve", note: `run ${c.run} ended (${how})` };
      }
    }
    return undefined;
  }

  private deliver(notification: Notification): void {
    const n = this.afterOperatorResolve(notification);
    const c = n.condition;
    const schedule = c.schedule === undefined ? undefined : this.schedules().get(c.schedule);
    let incident: ReturnType<typeof syncIncident>;
    try {
      incident = syncIncident(this.incidents, n);
    } catch (err) {
      this.log.error({ err, fingerprint: n.fingerprint }, "monitor: incident update failed");
    }
    if (!goesToChannels(n)) {
      this.log.info(
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
      run: c.run === undefined ? undefined : this.tracker.get(c.run),
      schedule,
      timezone: this.options.config.defaults.timezone,
      incident,
    });
    const channels = channelsFor(this.options.config, this.outbox.channelNames(), schedule);
    this.outbox.enqueue(message, channels);
    this.log.info(
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

  private onDead(dead: Parameters<typeof deliveryFailedMessage>[0]): void {
    const others = this.outbox.channelNames().filter((name) => name !== dead.channel);
    this.log.error(
      { channel: dead.channel, fingerprint: dead.message.fingerprint, error: dead.error },
      others.length > 0 ? "alert undeliverable; telling the other channels" : "alert undeliverable",
    );
    if (others.length > 0) this.outbox.enqueue(deliveryFailedMessage(dead), others);
  }

  private evaluateSoon(): void {
    if (!this.started || this.soon !== undefined) return;
    const wait = Math.max(0, this.lastSoonAt + 10 - Date.now());
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.lastSoonAt = Date.now();
      this.evaluate(true);
    }, wait);
  }

  /**
   * Whether the schedule set is known yet: before the daemon's first load its map is empty,
   * and an empty map must not read as "every schedule was removed".
   */
  private schedulesLoaded(): boolean {
    return this.options.daemon === undefined
      ? (this.standalone?.loaded ?? true)
      : this.daemonLoaded;
  }

  private schedules(): ReadonlyMap<string, Schedule> {
    return this.options.daemon?.schedules ?? this.standalone?.schedules() ?? new Map();
  }

  /** Thresholds per schedule, recomputed only when the schedules are reloaded. */
  private thresholds(): ThresholdsFor {
    const schedules = this.schedules();
    if (this.thresholdsCache?.schedules !== schedules) {
      const value = thresholdsBySchedule(this.options.config.monitor, [...schedules.values()]);
      this.thresholdsCache = { schedules, value };
    }
    return this.thresholdsCache.value;
  }

  private journalPaths(): Promise<string[]> {
    const { config, journals } = this.options;
    this.standalone?.refresh(this.now());
    return journalPaths({
      ...(journals && { explicit: journals }),
      globs: config.monitor.journals,
      // Many schedules share a project dir: one journal each.
      projectDirs: () => new Set([...this.schedules().values()].map((s) => s.projectDir)),
      cwd: config.dir,
    });
  }

  private countIncidents(): number {
    this.openIncidents = this.incidents.snapshot().active.length;
    return this.openIncidents;
  }

  private loadAlertState(): AlertState {
    return new AlertState(this.paths.alerts, this.options.policy, {
      log: (m) => this.log.warn(m),
    });
  }

  private attachDaemon(): void {
    const daemon = this.options.daemon;
    if (daemon === undefined) return;
    const onFire = (e: { schedule: string; runId: string; trigger: string }) =>
      this.facts.noteFire(e.schedule, e.runId, e.trigger);
    const onMissed = (e: { schedule: string; slots: Date[]; reason: string }) =>
      this.facts.noteMissed(e.schedule, e.slots, e.reason);
    const onLoaded = () => {
      this.daemonLoaded = true;
      void this.journalPaths().then(
        (paths) => {
          for (const path of paths) this.follower.add(path);
        },
        (err) => this.log.error({ err }, "monitor: cannot list journals after a reload"),
      );
    };
    daemon.on("fire", onFire);
    daemon.on("missed", onMissed);
    daemon.on("loaded", onLoaded);
    this.detach.push(
      () => daemon.off("fire", onFire),
      () => daemon.off("missed", onMissed),
      () => daemon.off("loaded", onLoaded),
    );
  }
}
