// The monitor as a running service: follows journals, folds them into run states, evaluates
// on every batch and on a timer (./evaluation.ts), advances the alert state, and delivers
// (./alert-delivery.ts: the durable outbox, incident files; enqueue first, then save).
import { join } from "node:path";
import type { Logger } from "pino";
import { IncidentStore } from "../incidents/store.js";
import { JournalFollower } from "../journal/follower.js";
import { failingWriters, type WriteTrouble } from "../journal/held-lines.js";
import { runEnvironment } from "../scheduler/config/config.js";
import { readPreflightState } from "../scheduler/preflight/preflight-file.js";
import { readPauseState } from "../scheduler/schedules/pause-state.js";
import { after, type Pending } from "../util/timers.js";
import { AlertDelivery } from "./alert-delivery.js";
import { alertPullRequest } from "./alert-pull-request.js";
import { channelsFor, pagingChannels } from "./alert-routing.js";
import { AlertState, type Notification } from "./alert-state.js";
import type { AlertMessage } from "./alerts/message.js";
import { MonitorFacts } from "./detect/facts.js";
import { RunTracker } from "./detect/run-tracker.js";
import { readDigest } from "./digest-read.js";
import { DigestSender } from "./digest-sender.js";
import { IncrementalEvaluation } from "./evaluation.js";
import { markFiredPaged, readFiredDead } from "./fired-deliveries.js";
import { journalPaths } from "./journal-set.js";
import { issueFollowupFailedMessage } from "./outbox/issue-followup-failed.js";
import { drainOutbox, openOutbox } from "./outbox/open.js";
import type { Outbox } from "./outbox/outbox.js";
import { pullRequestFailedMessage, type UndeliveredRun } from "./outbox/pull-request-failed.js";
import { listUntoldIssues, removeUntoldIssues } from "./outbox/untold-issues.js";
import { type MonitorPaths, monitorPaths, watchingSince } from "./paths.js";
import { PreflightChecks } from "./preflight-checks.js";
import { SchedulerView } from "./scheduler-view.js";
import type { MonitorServiceOptions, MonitorStatus, OnceResult } from "./service-options.js";
import { SilenceStore } from "./silences.js";
import { loadTracker, saveTracker, saveTrackerInBackground } from "./tracker-file.js";
import { withWindows } from "./windows.js";

/** Changed runs from which the tracker is saved before its 5 s are up (see `flushEarly`). */
const EARLY_SAVE_RUNS = 1000;

export type { MonitorServiceOptions, MonitorStatus, OnceResult } from "./service-options.js";

export class MonitorService {
  readonly paths: MonitorPaths;
  readonly outbox: Outbox;
  readonly incidents: IncidentStore;
  private readonly log: Logger;
  private readonly now: () => Date;
  private readonly tracker: RunTracker;
  private readonly follower: JournalFollower;
  private readonly operators: SilenceStore;
  private readonly facts: MonitorFacts;
  /** When this state dir's monitor began watching: runs that ended before are history. */
  private readonly watchingSince: Date;
  private readonly view: SchedulerView;
  private readonly evaluation: IncrementalEvaluation;
  private readonly delivery: AlertDelivery;
  private readonly digests: DigestSender;
  /** `preflight` checks, made here only without a daemon in this process (it makes its own). */
  private readonly preflight: PreflightChecks | undefined;
  private alertState: AlertState;
  private timer: NodeJS.Timeout | undefined;
  private soon: Pending | undefined;
  /** After a failed evaluation: the alert state being read again. */
  private reloadingState: Promise<void> | undefined;
  private started = false;
  private trackerDirty = false;
  /** Wall-clock ms of the last batch-triggered pass (leading-edge coalescing of bursts). */
  private lastSoonAt = Number.NEGATIVE_INFINITY;
  private openIncidents: number | undefined;
  private readonly detach: (() => void)[] = [];
  private pagingFired = false;
  private pagingUntold = false;
  /** The queue file as last read for fire's deliveries given up on (./fired-deliveries.ts). */
  private firedSeen: string | undefined;

  /**
   * Told of the notifications of each pass that sends some, and (with none) when incident
   * files were written after their pages: the status page's live updates.
   */
  readonly notified: ((notifications: Notification[]) => void)[] = [];

  /** Epoch ms of the last evaluation pass: the standalone monitor's /healthz reads it. */
  lastEvaluatedAt: number | undefined;

  /** Whether a PagerDuty or Opsgenie channel is configured (they are told of acks). */
  private get pagingChannels(): boolean {
    return pagingChannels(this.options.config).length > 0;
  }

  constructor(private readonly options: MonitorServiceOptions) {
    const { config, logger, daemon } = options;
    this.log = logger;
    this.now = options.now ?? (() => new Date());
    this.paths = monitorPaths(config.stateDir);
    this.tracker = new RunTracker({}, loadTracker(this.paths, logger));
    this.alertState = this.loadAlertState();
    this.operators = new SilenceStore(this.paths.silences, (m) => logger.warn(m));
    this.incidents = new IncidentStore(this.paths.incidents, { now: this.now });
    this.outbox = this.newOutbox();
    this.view = new SchedulerView(config, logger, daemon);
    this.watchingSince = watchingSince(this.paths, this.now());
    this.facts = this.newFacts();
    this.evaluation = new IncrementalEvaluation(this.tracker, this.facts, this.view);
    this.delivery = this.newDelivery();
    this.follower = this.newFollower();
    this.digests = this.newDigestSender();
    const env = runEnvironment(config, process.env);
    this.preflight = this.view.inProcess
      ? undefined
      : new PreflightChecks({
          stateDir: config.stateDir,
          log: logger,
          env: () => env,
          now: () => this.now().getTime(),
        });
    for (const problem of this.follower.positionProblems) this.log.warn({ problem }, "monitor");
    // Listening from construction on: the daemon announces missed slots as it starts.
    this.detach.push(this.listenToScheduler());
  }

  /** Pages once about a run whose pull request was given up on, through its schedule's channels. */
  pageUndelivered(run: UndeliveredRun): void {
    this.pageSchedule(run.schedule, (timezone) => pullRequestFailedMessage(run, timezone));
  }

  /** Enqueues a page about one schedule, in its zone, to its channels. */
  private pageSchedule(name: string, message: (timezone: string) => AlertMessage): void {
    const schedule = this.view.schedules().get(name);
    const timezone = schedule?.timezone ?? this.options.config.defaults.timezone;
    const channels = channelsFor(this.options.config, this.outbox.channelNames(), schedule);
    this.outbox.enqueue(message(timezone), channels);
  }

  /**
   * The issue follow-ups given up on (./outbox/untold-issues.ts), paged once each: a record goes
   * once its page is on disk. One given up on before this state dir's monitor first watched is
   * history: removed, not paged.
   */
  private async pageUntoldIssues(): Promise<void> {
    if (this.pagingUntold) return;
    this.pagingUntold = true;
    try {
      const { stateDir } = this.options.config;
      const untold = listUntoldIssues(stateDir);
      if (untold.length === 0) return;
      const since = this.watchingSince.getTime();
      for (const u of untold)
        if (Date.parse(u.at) >= since)
          this.pageSchedule(u.schedule, (tz) => issueFollowupFailedMessage(u, tz));
      await this.outbox.durable();
      for (const u of untold) removeUntoldIssues(stateDir, u.runId);
    } catch (err) {
      this.log.warn({ err }, "monitor: the issue follow-ups given up on are unreadable");
    } finally {
      this.pagingUntold = false;
    }
  }

  /**
   * The deliveries a daemonless `fire` gave up on (./fired-deliveries.ts), paged once each: they
   * are marked paged only once their pages are on disk. One given up on before this state dir's
   * monitor first watched is history: marked, not paged.
   */
  private async pageFiredDeliveries(): Promise<void> {
    if (this.pagingFired) return;
    this.pagingFired = true;
    try {
      const { deliveries } = this.paths;
      const reading = readFiredDead(deliveries, this.firedSeen);
      if (reading === undefined) return;
      const since = this.watchingSince.getTime();
      for (const run of reading.unpaged) if (run.at >= since) this.pageUndelivered(run);
      await this.outbox.durable();
      const ids = reading.unpaged.map((run) => run.runId);
      markFiredPaged(deliveries, ids, this.now());
      this.firedSeen = reading.seen;
    } catch (err) {
      this.log.warn({ err }, "monitor: the deliveries fire gave up on are unreadable");
    } finally {
      this.pagingFired = false;
    }
  }

  /** The durable outbox of pages; a message given up on goes to the delivery's dead letters. */
  private newOutbox(): Outbox {
    const { config, logger, onAttempt, channelDeps } = this.options;
    return openOutbox(config, logger, {
      path: this.options.outboxPath ?? this.paths.outbox,
      now: () => this.now().getTime(),
      onDead: (dead) => this.delivery.onDead(dead),
      onAttempt,
      ...(channelDeps && { channelDeps }),
    });
  }

  /** The scheduler's facts detection reads: ledger, schedules, pauses, write trouble. */
  private newFacts(): MonitorFacts {
    const { config, isAlive } = this.options;
    return new MonitorFacts(
      {
        ledger: () => this.view.ledger(),
        schedules: () => this.view.schedules(),
        invalid: () => this.view.invalid(),
        writeTrouble: () => this.writeTrouble(),
        pauseState: () => readPauseState(config.stateDir),
        preflightState: () => readPreflightState(config.stateDir),
        configDir: config.dir,
        outputDir: join(config.stateDir, "output"),
        ...(!this.view.inProcess && {
          expectSlots: {
            pauseState: () => readPauseState(config.stateDir),
            thresholds: () => this.view.thresholds(),
          },
        }),
        ...(isAlive && { isAlive }),
        onUnconfirmedEnd: (run, pid) =>
          this.log.warn(
            { run: run.run, journal: run.journalPath, pid, end: run.terminal?.topic },
            "monitor: a run's journal says it ended while its harness still runs; the record is not the harness's and is ignored until the harness ends",
          ),
      },
      this.watchingSince,
    );
  }

  /** Turns notifications into outbox messages and incident files. */
  private newDelivery(): AlertDelivery {
    return new AlertDelivery({
      config: this.options.config,
      log: this.log,
      outbox: this.outbox,
      incidents: this.incidents,
      run: (id) => this.tracker.get(id),
      schedule: (name) => this.view.schedules().get(name),
      pullRequest: (schedule, run) => {
        const ledger = this.view.ledger();
        if (ledger === undefined) return undefined;
        // A schedule's runs are looked through (a file read each) only when it delivers to one
        // pull request: with `source` each issue has its own, and a run names only its own.
        const s = schedule === undefined ? undefined : this.view.schedules().get(schedule);
        const delivers = s?.deliver !== undefined && s.source === undefined;
        return alertPullRequest(ledger, delivers ? schedule : undefined, run);
      },
      onIncidentsWritten: () => {
        this.openIncidents = undefined;
        for (const listener of this.notified) listener([]);
      },
    });
  }

  /** The `[[digest]]`s, read from what this monitor sees, sent through its outbox. */
  private newDigestSender(): DigestSender {
    const { config } = this.options;
    const held = () => {
      const ledger = this.view.ledger();
      const { view } = this;
      return ledger && { ledger, schedules: view.schedules(), invalid: view.invalid() };
    };
    return new DigestSender({
      digests: config.digests,
      stateDir: config.stateDir,
      outbox: this.outbox,
      read: (digest, since, until) =>
        readDigest(config, digest, since, until, held(), (id) => this.tracker.get(id)?.published),
      log: this.log,
    });
  }

  /** Follows every journal into the tracker, saving it as it flushes its positions. */
  private newFollower(): JournalFollower {
    const { follower } = this.options;
    return new JournalFollower({
      positionsFile: this.paths.positions,
      onLines: (path, batch) => {
        this.tracker.apply(path, batch);
        for (const r of batch.records) this.evaluation.touch(r.run);
        this.trackerDirty = true;
        this.evaluateSoon();
      },
      beforeFlush: () => {
        if (!this.trackerDirty) return;
        const text = this.tracker.snapshotParts();
        this.trackerDirty = false;
        return saveTrackerInBackground(this.paths, text).catch((err: unknown) => {
          this.trackerDirty = true;
          throw err;
        });
      },
      // A save serializes the runs changed since the last one, in one go: ~1,000 of
      // them or more hold the loop too long, so save sooner.
      flushEarly: () => this.tracker.changedRuns() >= EARLY_SAVE_RUNS,
      onReset: (path, reason) => {
        this.log.info({ journal: path, reason }, "monitor: journal replaced; reading it again");
        this.tracker.resetJournal(path);
      },
      onError: (path, err) =>
        this.log.error({ journal: path, err }, "monitor: journal read failed"),
      onLongLine: (path, offset) =>
        this.log.warn(
          { journal: path, offset },
          "monitor: skipped a journal line over 16 MiB (not one the harness writes)",
        ),
      discover: () => this.journalPaths(),
      pollIntervalMs: follower?.pollIntervalMs ?? 1000,
      // Under steady load every wake-up waits out the debounce: it is most of the detection
      // latency.
      debounceMs: follower?.debounceMs ?? 20,
      ...(follower?.deps && { deps: follower.deps }),
    });
  }

  /** The daemon's fires, missed slots and reloads; returns the way to stop listening. */
  private listenToScheduler(): () => void {
    return this.view.listen({
      fire: (e) => this.facts.noteFire(e.schedule, e.runId, e.trigger),
      missed: (e) => this.facts.noteMissed(e.schedule, e.slots, e.reason),
      loaded: () =>
        void this.journalPaths().then(
          (paths) => {
            for (const path of paths) this.follower.add(path);
          },
          (err) => this.log.error({ err }, "monitor: cannot list journals after a reload"),
        ),
    });
  }

  /** The daemon's ledger and this outbox, while their writes fail (a full disk). */
  writeTrouble(): ({ what: "ledger" | "outbox" } & WriteTrouble)[] {
    return failingWriters({ ledger: this.view.ledger(), outbox: this.outbox });
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
    void this.digests.check(this.now().getTime());
    void this.pageFiredDeliveries();
    void this.pageUntoldIssues();
    this.checkLogins();
    this.timer = setInterval(() => {
      this.evaluate();
      void this.digests.check(this.now().getTime());
      void this.pageFiredDeliveries();
      void this.pageUntoldIssues();
      this.checkLogins();
    }, this.options.evaluateEveryMs ?? 5000);
    this.timer.unref();
  }

  /** The `preflight` checks due, in the background; what they found is paged once they end. */
  private checkLogins(): void {
    this.preflight
      ?.tick(this.view.schedules().values())
      .then((checked) => {
        if (checked > 0 && this.started) this.evaluate();
      })
      .catch((err: unknown) => this.log.warn({ err }, "monitor: the preflight checks failed"));
  }

  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.timer);
    this.soon?.cancel();
    this.soon = undefined;
    for (const off of this.detach.splice(0)) off();
    this.delivery.writePlannedIncidents();
    await this.digests.settled();
    await this.follower.stop();
    saveTracker(this.paths, this.tracker.snapshotText());
    await this.reloadingState;
    await this.alertState.flush();
    try {
      await this.outbox.durable(); // before the state that says its pages were sent
      this.alertState.save();
    } catch (err) {
      // Not saved: after a restart the pages are decided and sent again, never lost.
      this.log.error({ err }, "monitor: the outbox is not on disk; alert state not saved");
    }
    await this.outbox.close();
  }

  /**
   * One pass over everything: read what is new in every journal, evaluate, and (when not
   * started) deliver, waiting for the outbox to drain for at most `drainMs`.
   */
  async runOnce(drainMs = 30_000): Promise<OnceResult> {
    if (!this.started) for (const path of await this.journalPaths()) this.follower.add(path);
    await this.follower.poll();
    // Waited for: one pass pages what its checks found.
    if (!this.started) await this.preflight?.tick(this.view.schedules().values());
    const notifications = this.evaluate();
    this.delivery.writePlannedIncidents();
    await this.digests.check(this.now().getTime());
    await this.pageFiredDeliveries();
    await this.pageUntoldIssues();
    await this.alertState.flush();
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
    if (this.reloadingState !== undefined) return []; // the next pass decides, on the reloaded state
    const now = this.now();
    this.lastEvaluatedAt = now.getTime();
    try {
      this.view.refresh(now);
      const { conditions, full } = this.evaluation.conditions(now, onlyTouched);
      const notifications = this.alertState
        .reconcile(
          conditions,
          now,
          withWindows(this.operators.current(), this.options.config.windows, now),
          (rec) => this.evaluation.endingOf(rec),
          this.watchingSince,
        )
        // An ack is news only for paging services to keep in step; without one, nobody's.
        .filter((n) => n.kind !== "acknowledged" || this.pagingChannels);
      for (const n of notifications) this.delivery.deliver(n);
      // Enqueued first, then saved, off the event loop: the outbox's send goes first. Changes
      // that notify nobody (a condition clearing, a resolved alert aging out) wait for the
      // next full pass: serializing every alert on each of the many batch passes a second
      // cost CPU for nothing.
      if (full || notifications.length > 0) this.alertState.saveInBackground();
      if (notifications.length > 0) {
        this.openIncidents = undefined;
        // Told once the alert state is on disk, so what a listener reads there is current.
        const told = this.notified;
        if (told.length > 0)
          void this.alertState
            .flush()
            .catch(() => {}) // a failed save is logged by the state; listeners still hear
            .then(() => {
              for (const listener of told) listener(notifications);
            })
            .catch((err: unknown) => this.log.warn({ err }, "monitor: a listener failed"));
      }
      return notifications;
    } catch (err) {
      // Nothing saved: reload, so what was not enqueued is decided (and sent) again; once the
      // saves already under way have landed, so the state read is the newest written.
      this.log.error({ err }, "monitor: evaluation failed; will retry");
      const failed = this.alertState;
      failed.discardPending();
      this.reloadingState = failed.flush().then(() => {
        if (this.alertState === failed) this.alertState = this.loadAlertState();
        this.reloadingState = undefined;
      });
      return [];
    }
  }

  private evaluateSoon(): void {
    if (!this.started || this.soon !== undefined) return;
    const wait = Math.max(0, this.lastSoonAt + 10 - Date.now());
    this.soon = after(wait, () => {
      this.soon = undefined;
      this.lastSoonAt = Date.now();
      this.evaluate(true);
    });
  }

  private journalPaths(): Promise<string[]> {
    const { config, journals } = this.options;
    this.view.refresh(this.now());
    return journalPaths({
      ...(journals && { explicit: journals }),
      globs: config.monitor.journals,
      // Many schedules share a project dir: one journal each.
      projectDirs: () => {
        const dirs = new Set<string>();
        for (const s of this.view.schedules().values()) dirs.add(s.projectDir);
        return dirs;
      },
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
      beforeSave: () => this.outbox.durable(),
    });
  }
}
