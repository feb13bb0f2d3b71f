// The scheduler daemon: plans every schedule in one fire queue, hands due slots to the slot
// runner, recovers after a crash, reloads schedule files, answers the control plane and
// shuts down gracefully. Everything it does is announced as a typed event (./events.ts).

import type { FSWatcher } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Logger } from "pino";
import type { FieldProblem } from "../../util/errors.js";
import { OneAtATime } from "../../util/one-at-a-time.js";
import { checkStateDir } from "../../util/private-files.js";
import { eachItem, runSliced } from "../../util/steps.js";
import { type CronConfig, runEnvironment } from "../config/config.js";
import { deliverTokenEnvNames, unusableDeliverTokens } from "../config/deliver.js";
import { sourceTokenEnvNames, unusableSourceTokens } from "../config/source.js";
import { type HookDelivery, hookSecretEnvNames, unusableHookSecrets } from "../hooks/delivery.js";
import { RunHeartbeats } from "../launch/heartbeats.js";
import type { ProcessStarter } from "../launch/process-start.js";
import { retakePolicy } from "../launch/retake-policy.js";
import { pullRequestProblem } from "../launch/review-checkout.js";
import type { Trigger } from "../ledger/events.js";
import { GroupCommit } from "../ledger/group-commit.js";
import { RunLedger } from "../ledger/ledger.js";
import { everySixHours } from "../ledger/retention.js";
import { Preflights } from "../preflight/preflights.js";
import { registerEnvFileSecrets } from "../schedules/env-file-secrets.js";
import { ScheduleFileCache } from "../schedules/file-cache.js";
import { writeInForce } from "../schedules/in-force.js";
import { listRows } from "../schedules/list-row.js";
import { killSwitchOn, type PauseState, readPauseState } from "../schedules/pause-state.js";
import type { Schedule } from "../schedules/schedule-file.js";
import { type ScheduleSetUpdate, scheduleSetSteps } from "../schedules/schedule-set.js";
import { type FireEvent, FireQueue, type FireQueueDeps, realClock } from "../timing/fire-queue.js";
import { catchUpSlots } from "../timing/planner.js";
import { clockJumped } from "./clock-step.js";
import { answerRequests, type Control, type ControlResponse, controlDir } from "./control.js";
import { watchCrowdedPass } from "./crowded-pass.js";
import { ElsewhereRuns } from "./elsewhere-runs.js";
import { DaemonEmitter, type DaemonEvents } from "./events.js";
import { debounced, watchFolders } from "./folder-watch.js";
import { recoverOrphans } from "./orphan-slots.js";
import { planUpdate } from "./put-in-force.js";
import { resumePending } from "./recovery.js";
import { recordRemotes } from "./remote-record.js";
import { RetryBook } from "./retries.js";
import type { ActiveRun } from "./run-table.js";
import { SlotRunner } from "./slot-runner.js";

export type { DaemonEvents } from "./events.js";

export interface DaemonDeps {
  logger: Logger;
  env: NodeJS.ProcessEnv;
  clock: FireQueueDeps;
  /** How often the daemon proves it is alive, looks for control requests and prunes. */
  tickMs: number;
  /** Spawns runs' processes (`autoloop-cron start`: the spawn helper); absent: from here. */
  startProcess?: ProcessStarter;
}

export class SchedulerDaemon extends DaemonEmitter {
  readonly ledger: RunLedger;
  /** The ledger's fsyncs, a turn's together and off the event loop. */
  private readonly commit: GroupCommit;
  /** The launcher's heartbeats of every run this daemon launched or adopted. */
  private readonly heartbeats: RunHeartbeats;
  /** The schedules in force (a load may update this map in place: see ScheduleSetUpdate). */
  private inForce: Map<string, Schedule> = new Map();
  /**
   * The environment runs are launched with: the daemon's, without the config's secrets nor
   * the schedules' hook secrets (worked out again with each load).
   */
  private runEnv: NodeJS.ProcessEnv;
  /** paused.json, re-read every tick (it changes by hand, rarely). */
  private pause: PauseState = { all: false, schedules: [] };
  private readonly queue: FireQueue;
  private readonly slots: SlotRunner;
  /** Retries owed (`retry`), started by the tick when their time comes. */
  readonly retries: RetryBook;
  /** The agents' logins checked before each slot (`preflight`), started by the tick. */
  readonly preflights: Preflights;
  private readonly deps: DaemonDeps;
  private watchers: FSWatcher[] = [];
  /** Its schedule files were loaded at least once (before that, its map is empty). */
  loadedOnce = false;
  private tickTimer: NodeJS.Timeout | undefined;
  private readonly reloadSoon: ReturnType<typeof debounced>;
  private stopping = false;
  lastTickAt = new Date(0);
  invalidProblems: FieldProblem[] = [];
  /** Parsed schedule files kept between reloads (a reload reads only changed files). */
  private readonly files = new ScheduleFileCache();
  private inForceRecorded = false;
  private readonly prune: (now: number) => void;
  private readonly reloads = new OneAtATime(
    () => this.reloadSchedules(),
    () => this.stopping,
  );

  constructor(
    readonly config: CronConfig,
    deps: Partial<DaemonDeps> & { logger: Logger },
  ) {
    super();
    this.deps = { env: process.env, clock: realClock, tickMs: 1000, ...deps };
    this.runEnv = runEnvironment(config, this.deps.env);
    const checked = checkStateDir(config.stateDir);
    if (checked.tightened.length > 0)
      deps.logger.warn(
        { stateDir: config.stateDir, tightened: checked.tightened },
        "state dir: took group and other permissions away (state is private to its owner)",
      );
    this.commit = new GroupCommit(deps.logger);
    // One clock for the daemon: the ledger's times are the ones budgets and periods count by.
    const clock = this.deps.clock;
    this.ledger = RunLedger.open(config.stateDir, {
      ...this.commit.ledgerDeps(),
      now: () => new Date(clock.now()),
      retake: retakePolicy(config),
    });
    this.prune = everySixHours(config, this.ledger, deps.logger);
    this.heartbeats = new RunHeartbeats(config.stateDir, config.runHeartbeatMs, {
      logger: deps.logger,
    });
    this.queue = new FireQueue((e) => this.onFireEvent(e), this.deps.clock, {
      onHandlerError: (err) => this.deps.logger.error({ err }, "fire handler failed"),
      // A burst (many schedules on one second) is logged with how long it held the loop.
      onPass: (slots, ms) => watchCrowdedPass(this.log, slots, ms),
    });
    const elsewhere = new ElsewhereRuns(config.stateDir, (runId) => this.active.has(runId));
    this.slots = new SlotRunner({
      config,
      ledger: this.ledger,
      log: deps.logger,
      runEnv: () => this.runEnv,
      env: this.deps.env,
      startProcess: deps.startProcess,
      heartbeats: this.heartbeats,
      elsewhere: (name) => elsewhere.of(name),
      now: () => this.deps.clock.now(),
      schedule: (name) => this.schedules.get(name),
      pause: () => this.pause,
      refreshPause: () => this.refreshPause(),
      // AUTOLOOP_CRON_PAUSED, read once: the environment is fixed for the process's life.
      killSwitch: killSwitchOn(this.deps.env),
      stopping: () => this.stopping,
      runEnded: (runId) => this.retries.consider(runId) !== undefined,
      emit: (event, payload) => this.emit(event, ...([payload] as DaemonEvents[typeof event])),
    });
    this.retries = new RetryBook({
      ledger: this.ledger,
      schedule: (name) => this.schedules.get(name),
      now: () => this.deps.clock.now(),
      log: deps.logger,
    });
    this.preflights = new Preflights({
      stateDir: config.stateDir,
      log: deps.logger,
      env: () => this.runEnv,
      now: () => this.deps.clock.now(),
    });
    this.reloadSoon = debounced(200, () => {
      this.log.info("schedule files changed: reloading");
      void this.reload();
    });
  }

  get active(): ReadonlyMap<string, ActiveRun> {
    return this.slots.runs.active;
  }

  /** When the schedule fires next (jittered), if planned. */
  nextFire(name: string): Date | undefined {
    return this.queue.pending(name)?.fireAt;
  }

  /** Reads paused.json now rather than at the next tick (after an operator changed it). */
  refreshPause(): void {
    this.pause = readPauseState(this.config.stateDir);
  }

  get schedules(): ReadonlyMap<string, Schedule> {
    return this.inForce;
  }

  protected get log(): Logger {
    return this.deps.logger;
  }

  /** Loads schedules (in slices), recovers runs a previous daemon left, catches up, fires. */
  async start(): Promise<void> {
    this.refreshPause();
    // Watched before the first load: a file that comes while it runs is loaded right after.
    this.watchers = watchFolders(
      [{ dir: this.config.schedulesDir, onChange: this.reloadSoon }],
      this.log,
    );
    await this.reload();
    this.recoverLater(this.recover());
    // Before catch-up: a slot retaken now counts as the schedule's latest for it.
    recoverOrphans({
      ledger: this.ledger,
      log: this.log,
      now: () => this.deps.clock.now(),
      schedule: (name) => this.schedules.get(name),
      stopping: () => this.stopping,
      run: (name, slot) => this.onSlot(name, slot, "catch_up", slot.getTime()),
      skip: (record) => this.slots.skip(record),
    });
    const now = new Date(this.deps.clock.now());
    await runSliced(
      eachItem(this.schedules.values(), (schedule) => this.catchUp(schedule, now, "daemon_down")),
    );
    if (this.stopping) return;
    // A retry owed when the previous daemon stopped (its delay may have passed meanwhile).
    this.retries.considerAll(this.schedules.values());
    this.queue.start();
    const control = controlDir(this.config.stateDir);
    this.watchers.push(...watchFolders([{ dir: control, onChange: () => this.tick() }], this.log));
    this.tickTimer = setInterval(() => this.tick(), this.deps.tickMs);
    this.tickTimer.unref();
    this.tick();
  }

  /** Adopts or closes the runs a previous daemon left; returns those left to other hosts. */
  private recover(only?: ReadonlySet<string>): Set<string> {
    return resumePending(this.ledger, this.log, (run) => this.slots.adopt(run), {
      heartbeats: this.heartbeats,
      ended: (run) => this.emit("recovered", run),
      ...(only !== undefined && { only }),
    });
  }

  /**
   * With `[ha] lease`: looks again at runs left to other hosts each time their heartbeats could
   * have gone stale (three intervals), so a run whose launcher died with its host, or with the
   * daemon whose lease this one took, is closed then rather than at the next restart. (Without
   * it, a daemon may share the state dir with another host's daemon, detached between restarts.)
   */
  private recoverLater(elsewhere: Set<string>): void {
    if (this.config.leaseMs === undefined || elsewhere.size === 0 || this.stopping) return;
    const timer = setTimeout(
      () => {
        if (this.stopping) return;
        const left = [...elsewhere].filter((id) => !this.active.has(id));
        this.recoverLater(this.recover(new Set(left)));
      },
      3 * this.config.runHeartbeatMs + 1000,
    );
    timer.unref();
  }

  /**
   * Re-reads schedule files (invalid ones keep their last good version), one reload at a time;
   * resolves once the files as they were when asked for are in force.
   */
  reload(): Promise<void> {
    return this.reloads.run();
  }

  private async reloadSchedules(): Promise<void> {
    try {
      await this.loadSchedules();
    } catch (err) {
      // The schedules in force stay; a reload must never take the daemon down.
      this.log.error({ err }, "reloading schedule files failed; keeping the schedules in force");
    }
  }

  private async loadSchedules(): Promise<void> {
    const started = performance.now();
    // How long the event loop was held at most while loading (logged: it should stay small).
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    try {
      const update = await runSliced(scheduleSetSteps(this.config, this.inForce, this.files));
      this.invalidProblems = update.problems;
      if (update.problems.length > 0) {
        for (const p of update.problems)
          this.log.error(
            { file: p.file, field: p.field },
            `invalid schedule: ${p.file}: ${p.field}: found ${p.found}; expected ${p.expected}`,
          );
        this.emit("invalid", { problems: update.problems, keptPrevious: update.keptPrevious });
      }
      await this.putInForce(update);
      registerEnvFileSecrets(this.schedules.values());
      const secrets = [
        ...hookSecretEnvNames(this.schedules.values()),
        ...deliverTokenEnvNames(this.schedules.values()),
        ...sourceTokenEnvNames(this.schedules.values()),
      ];
      this.runEnv = runEnvironment(this.config, this.deps.env, secrets);
      for (const { schedule, problem } of unusableDeliverTokens(
        this.schedules.values(),
        this.deps.env,
      ))
        this.log.error(
          { schedule },
          `${problem}; its runs' pull requests are given up on (and paged) until it is fixed`,
        );
      for (const { schedule, problem } of unusableSourceTokens(
        this.schedules.values(),
        this.deps.env,
      ))
        this.log.error({ schedule }, `${problem}; its slots are skipped until it is fixed`);
      for (const { schedule, problem } of unusableHookSecrets(
        this.schedules.values(),
        this.deps.env,
      ))
        this.log.error(
          { schedule },
          `${problem}; POST /hooks/${schedule} is refused until it is fixed`,
        );
      this.log.info(
        {
          schedules: this.schedules.size,
          invalidFiles: new Set(update.problems.map((p) => p.file)).size,
          durationMs: Math.round(performance.now() - started),
          eventLoopMaxDelayMs: Math.round(loopDelay.max / 1e5) / 10,
        },
        "schedules loaded",
      );
    } finally {
      loopDelay.disable();
    }
    // Before any slot of the load fires: the URLs its runs' config cannot move from then on.
    await recordRemotes(this.schedules.values(), this.config.stateDir, this.log);
    this.loadedOnce = true;
    this.emit("loaded", { count: this.schedules.size });
  }

  /** Puts a load's schedules in force; only new or changed ones are planned again. */
  private async putInForce(update: ScheduleSetUpdate): Promise<void> {
    const previous = this.inForce;
    // In force from now on: a slot of a removed schedule that comes due meanwhile is dropped.
    this.inForce = update.schedules;
    const moved = await planUpdate(previous, update, {
      upsert: (s) => this.queue.upsert(s, this.lastSlot(s.name)),
      remove: (name) => this.queue.remove(name),
    });
    if (moved || !this.inForceRecorded) await this.recordInForce();
  }

  /** Which file holds each name, for `validate` to agree with this daemon on duplicates. */
  private async recordInForce(): Promise<void> {
    try {
      await writeInForce(this.config, this.schedules);
      this.inForceRecorded = true;
    } catch (err) {
      this.log.warn(
        { err },
        "cannot record the schedules in force; validate may blame another file",
      );
    }
  }

  private lastSlot(name: string): Date | undefined {
    const slot = this.ledger.latestRun(name)?.slot;
    return slot === undefined ? undefined : new Date(slot);
  }

  private catchUp(
    schedule: Schedule,
    now: Date,
    reason: "daemon_down" | "late_wakeup",
    after?: Date,
  ): void {
    const last = after ?? this.lastSlot(schedule.name);
    const { slots } = catchUpSlots(schedule, last, now, schedule.catchUp);
    if (slots.length > 0 || reason === "late_wakeup")
      this.emit("missed", { schedule: schedule.name, slots, reason });
    for (const slot of slots) this.onSlot(schedule.name, slot, "catch_up", slot.getTime());
  }

  private onFireEvent(event: FireEvent): void {
    if (this.stopping) return;
    if (event.kind === "due") this.slots.onDue(event.slots, event.fireAt.getTime());
    else if (event.kind === "missed") {
      const schedule = this.schedules.get(event.name);
      this.log.warn(
        { schedule: event.name, slot: event.slot.toISOString(), latenessMs: event.lateness },
        "woke up late: slots passed unlaunched",
      );
      const now = new Date(this.deps.clock.now());
      if (schedule) this.catchUp(schedule, now, "late_wakeup", new Date(event.slot.getTime() - 1));
    } else clockJumped(this.ledger, this.schedules, event, this.log);
  }

  /** Applies the slot policy to a due slot; lateness is measured from `dueAt` (jittered). */
  onSlot(
    name: string,
    slot: Date,
    trigger: Trigger,
    dueAt = this.deps.clock.now(),
  ): ControlResponse | undefined {
    const schedule = this.schedules.get(name);
    return schedule && this.slots.onSlot(schedule, slot, trigger, dueAt);
  }

  /**
   * A webhook delivery for a schedule with a `hook` (checked by the HTTP endpoint): a run now,
   * under the same policies, claiming the delivery's key.
   */
  fireHook(name: string, delivery: HookDelivery): ControlResponse | undefined {
    this.refreshPause();
    const schedule = this.schedules.get(name);
    if (schedule === undefined || this.stopping) return undefined;
    const now = this.deps.clock.now();
    return this.slots.onSlot(schedule, new Date(now), "hook", now, delivery);
  }

  /** `autoloop-cron fire <schedule>`: a manual run now, under the same policies. */
  private fireNow(name: string, pullRequest?: number): ControlResponse {
    // Paused in the file a moment ago: read it now rather than at the next tick.
    this.refreshPause();
    const schedule = this.schedules.get(name);
    if (schedule === undefined) {
      const unknown = `unknown schedule ${JSON.stringify(name)}; \`autoloop-cron list\` shows the loaded ones`;
      return { id: "", ok: false, error: unknown };
    }
    const problem = pullRequestProblem(schedule, pullRequest);
    if (problem !== undefined) return { id: "", ok: false, error: problem };
    const now = this.deps.clock.now();
    return this.slots.onSlot(schedule, new Date(now), "manual", now, undefined, pullRequest);
  }

  private stopRun(runId: string, reason: string): ControlResponse {
    const run = this.slots.runs.stoppable(runId);
    if (run === undefined)
      return { id: "", ok: false, error: `run ${runId} is not running under this daemon` };
    run.stop(reason);
    return { id: "", ok: true, runId, message: `stopping ${runId}` };
  }

  /** Answers an operator's request (from the control files, or the status page in-process). */
  readonly control: Control = async (request) => {
    switch (request.action) {
      case "fire":
        return this.fireNow(request.schedule, request.pullRequest);
      case "stop":
        return this.stopRun(request.runId, request.reason);
      case "reload":
        await this.reload();
        return { id: "", ok: true, message: `reloaded: ${this.schedules.size} schedules` };
      case "list": {
        const all = this.pause.all || killSwitchOn(this.deps.env);
        const schedules = listRows(this.schedules.values(), this.pause, all, (s) =>
          this.nextFire(s.name),
        );
        return { id: "", ok: true, message: `${schedules.length} in force`, schedules };
      }
    }
  };

  private tick(): void {
    this.lastTickAt = new Date(this.deps.clock.now());
    this.prune(this.lastTickAt.getTime());
    this.ledger.retryHeld();
    this.refreshPause();
    answerRequests(this.config.stateDir, this.control, this.log);
    this.startRetries(this.lastTickAt.getTime());
    if (!this.stopping)
      void this.preflights.tick(this.schedules.values(), (name) => this.nextFire(name));
    this.emit("tick", { at: this.lastTickAt });
  }

  /** Starts the retries whose time has come, each if its slot still waits for it. */
  private startRetries(now: number): void {
    for (const owed of this.retries.due(now)) {
      const schedule = this.schedules.get(owed.schedule);
      // Since the plan: the schedule was removed, or its next slot came (the retry is left to it).
      const still = schedule && this.retries.recheck(owed);
      try {
        const started = still === undefined ? "skipped" : this.slots.retry(schedule!, still);
        if (started === "wait") this.retries.defer(still!);
        // The slot's retries are over without another run: its failures count now.
        else if (started === "skipped") this.slots.afterFailure(owed.schedule);
      } catch (err) {
        this.log.error({ err, schedule: owed.schedule }, "a retry could not be started");
      }
    }
  }

  /** Fires nothing more (slots, retries, hooks, `fire`), at once: the lease is another's. */
  stopFiring(): void {
    this.stopping = true;
    this.queue.stop();
  }

  /** Stops firing; terminates or detaches running runs; resolves when done or after the grace. */
  async shutdown(
    mode: "terminate" | "detach" = this.config.onShutdown,
    graceMs = this.config.shutdownGraceMs,
  ): Promise<void> {
    this.stopFiring();
    clearInterval(this.tickTimer);
    this.reloadSoon.cancel();
    for (const w of this.watchers) w.close();
    this.watchers = [];
    // Claimed, not yet spawned (still fetching, or queued): recorded interrupted.
    for (const launch of this.slots.runs.launching.values()) launch.interrupt();
    await this.slots.launchesSettled();
    const runs = [...this.active.values()];
    if (mode === "detach") {
      this.log.info({ runs: runs.length }, "detaching running runs; the next daemon adopts them");
    } else {
      for (const run of runs) run.stop("daemon shutdown");
      const grace = new Promise((r) => setTimeout(r, graceMs).unref());
      await Promise.race([Promise.allSettled(runs.map((r) => r.done)), grace]);
    }
    this.heartbeats.close();
    await this.commit.close();
  }
}
