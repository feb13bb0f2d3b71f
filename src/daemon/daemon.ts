// The scheduler daemon: plans every schedule in one fire queue, applies the slot policy,
// launches runs through the ledger, recovers after a crash, reloads schedule files and
// shuts down gracefully. Everything it does is announced as a typed event.

import { EventEmitter } from "node:events";
import { type FSWatcher, mkdirSync, watch } from "node:fs";
import type { Logger } from "pino";
import { admitSlot, ledgerCause, recordSkip, type SkipRecord } from "../admission/admission.js";
import type { SlotDecision } from "../admission/policy.js";
import { QUEUE_LIMIT, SlotQueue } from "../admission/slot-queue.js";
import { type CronConfig, runEnvironment } from "../config/config.js";
import type { RunOutcome } from "../launch/outcome.js";
import { launchSpecFor } from "../launch/schedule-spec.js";
import type { SkipCause, Trigger } from "../ledger/events.js";
import { RunLedger } from "../ledger/ledger.js";
import { newScheduledRunId } from "../ledger/scheduled-run-id.js";
import { killSwitchOn, type PauseState, readPauseState } from "../schedules/pause-state.js";
import type { Schedule } from "../schedules/schedule-file.js";
import { loadScheduleSet, scheduleChanged } from "../schedules/schedule-set.js";
import { inForcePath } from "../schedules/validate.js";
import { type FireEvent, FireQueue, type FireQueueDeps, realClock } from "../timing/fire-queue.js";
import { catchUpSlots, type PlanSpec } from "../timing/planner.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import type { FieldProblem } from "../util/errors.js";
import { PRIVATE_DIR } from "../util/private-files.js";
import {
  answer,
  type ControlRequest,
  type ControlResponse,
  controlDir,
  takeRequests,
} from "./control.js";
import { adoptRecorded, launchRecorded } from "./recorded-launch.js";
import { recoverPending } from "./recovery.js";
import { type ActiveRun, RunTable } from "./run-table.js";

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

export interface DaemonDeps {
  logger: Logger;
  env: NodeJS.ProcessEnv;
  clock: FireQueueDeps;
  /** How often the daemon proves it is alive and looks for control requests. */
  tickMs: number;
}

export class SchedulerDaemon extends EventEmitter<DaemonEvents> {
  readonly ledger: RunLedger;
  schedules = new Map<string, Schedule>();
  readonly runs = new RunTable();
  private readonly waiting = new SlotQueue();
  /** paused.json, re-read every tick (it changes by hand, rarely): not on every slot. */
  private pause: PauseState = { all: false, schedules: [] };
  private readonly queue: FireQueue;
  private readonly deps: DaemonDeps;
  private watchers: FSWatcher[] = [];
  private tickTimer: NodeJS.Timeout | undefined;
  private reloadTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  lastTickAt = new Date(0);
  /** What runs are launched with: the daemon's environment minus the config's secrets. */
  private readonly runEnv: NodeJS.ProcessEnv;
  /** AUTOLOOP_CRON_PAUSED, read once: the environment is fixed for the process's life. */
  private readonly killSwitch: boolean;
  invalidProblems: FieldProblem[] = [];
  private deferredLogs: Array<() => void> = [];

  constructor(
    readonly config: CronConfig,
    deps: Partial<DaemonDeps> & { logger: Logger },
  ) {
    super();
    this.deps = { env: process.env, clock: realClock, tickMs: 1000, ...deps };
    this.runEnv = runEnvironment(config, this.deps.env);
    this.killSwitch = killSwitchOn(this.deps.env);
    mkdirSync(config.stateDir, { recursive: true, mode: PRIVATE_DIR });
    this.ledger = RunLedger.open(config.stateDir, { logger: deps.logger });
    this.queue = new FireQueue((e) => this.onFireEvent(e), this.deps.clock, {
      onHandlerError: (err) => this.deps.logger.error({ err }, "fire handler failed"),
    });
  }

  /** Runs in progress, by id. */
  get active(): ReadonlyMap<string, ActiveRun> {
    return this.runs.active;
  }

  private get log(): Logger {
    return this.deps.logger;
  }

  /** Loads schedules, recovers runs left by a previous daemon, catches up, and starts firing. */
  start(): void {
    this.pause = readPauseState(this.config.stateDir);
    this.reload();
    for (const action of recoverPending(this.ledger)) {
      if (action.kind === "adopt") {
        const handle = adoptRecorded(this.ledger, action.entry);
        this.log.info(
          { runId: action.entry.runId, pid: action.entry.pid, schedule: action.entry.schedule },
          "adopted a run that outlived the previous daemon",
        );
        const { runId, schedule } = action.entry;
        const run = { runId, schedule, stop: handle.stop, done: handle.done };
        this.runs.adopt(run);
        this.watch(run);
      } else if (action.kind === "finished") {
        this.log.info(
          { runId: action.entry.runId, status: action.outcome.status },
          "run finished while the daemon was down",
        );
      } else {
        this.log.warn(
          { runId: action.entry.runId, reason: action.reason },
          "run marked interrupted: its process is gone",
        );
      }
    }
    const now = new Date(this.deps.clock.now());
    for (const schedule of this.schedules.values()) this.catchUp(schedule, now, "daemon_down");
    this.queue.start();
    this.watchSchedules();
    this.tickTimer = setInterval(() => this.tick(), this.deps.tickMs);
    this.tickTimer.unref();
    this.tick();
  }

  /**
   * Tells each listener (metrics, the in-process monitor, tests) in turn; one that throws is
   * logged and the others still hear of it, so no listener can stop a launch or a reload.
   */
  override emit<K extends keyof DaemonEvents>(event: K, ...args: DaemonEvents[K]): boolean {
    const listeners = this.rawListeners(event as never) as Array<(...a: unknown[]) => void>;
    for (const listener of listeners) {
      try {
        listener.apply(this, args);
      } catch (err) {
        this.log.error({ err, event }, "a daemon event listener failed; carrying on");
      }
    }
    return listeners.length > 0;
  }

  /** Re-reads schedule files; invalid files keep their previous good version. */
  reload(): void {
    try {
      this.reloadSchedules();
    } catch (err) {
      // The schedules in force stay; a reload must never take the daemon down.
      this.log.error({ err }, "reloading schedule files failed; keeping the schedules in force");
    }
  }

  private reloadSchedules(): void {
    const update = loadScheduleSet(this.config, this.schedules);
    this.invalidProblems = update.problems;
    if (update.problems.length > 0) {
      for (const p of update.problems)
        this.log.error(
          { file: p.file, field: p.field },
          `invalid schedule: ${p.file}: ${p.field}: found ${p.found}; expected ${p.expected}`,
        );
      this.emit("invalid", { problems: update.problems, keptPrevious: update.keptPrevious });
    }
    for (const name of this.schedules.keys())
      if (!update.schedules.has(name)) this.queue.remove(name);
    for (const [name, schedule] of update.schedules) {
      const old = this.schedules.get(name);
      if (old === undefined || scheduleChanged(old, schedule))
        this.queue.upsert(planSpec(schedule), this.lastSlot(name));
    }
    this.schedules = update.schedules;
    this.recordInForce();
    this.log.info(
      {
        schedules: this.schedules.size,
        invalidFiles: new Set(update.problems.map((p) => p.file)).size,
      },
      "schedules loaded",
    );
    this.emit("loaded", { count: this.schedules.size });
  }

  /** Which file holds each name, for `validate` to agree with this daemon on duplicates. */
  private recordInForce(): void {
    const owners = Object.fromEntries([...this.schedules].map(([name, s]) => [name, s.file]));
    try {
      writeFileAtomic(inForcePath(this.config), `${JSON.stringify(owners)}\n`);
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
    const { slots } = catchUpSlots(planSpec(schedule), last, now, schedule.catchUp);
    if (slots.length > 0 || reason === "late_wakeup")
      this.emit("missed", { schedule: schedule.name, slots, reason });
    for (const slot of slots) this.onSlot(schedule.name, slot, "catch_up", slot.getTime());
  }

  private onFireEvent(event: FireEvent): void {
    if (this.stopping) return;
    if (event.kind === "due") this.onSlot(event.name, event.slot, "cron", event.fireAt.getTime());
    else if (event.kind === "missed") {
      const schedule = this.schedules.get(event.name);
      this.log.warn(
        { schedule: event.name, slot: event.slot.toISOString(), latenessMs: event.lateness },
        "woke up late: slots passed unlaunched",
      );
      if (schedule)
        this.catchUp(
          schedule,
          new Date(this.deps.clock.now()),
          "late_wakeup",
          new Date(event.slot.getTime() - 1),
        );
    } else this.log.warn({ jumpMs: event.ms }, "the wall clock jumped");
  }

  /** The slot policy's decision, as things stand now (the same code `fire` uses). */
  private admit(schedule: Schedule): SlotDecision {
    return admitSlot(schedule, {
      pause: this.pause,
      killSwitch: this.killSwitch,
      running: this.runs.runningOf(schedule.name),
      runningTotal: this.runs.size,
      maxConcurrent: this.config.maxConcurrentRuns,
      ledger: this.ledger,
    });
  }

  /** A slot not launched: in the ledger, the log and the `skipped` event (metrics count it). */
  private skipSlot(skip: SkipRecord): ControlResponse {
    recordSkip(this.ledger, skip);
    const { runId, schedule, slot, cause, detail } = skip;
    this.log.info({ schedule, slot: slot.toISOString(), runId, cause }, `slot skipped: ${detail}`);
    this.emit("skipped", { schedule, slot, runId, cause, detail });
    return { id: "", ok: false, error: `not launched: ${detail}` };
  }

  /**
   * Applies the slot policy to one due slot. `dueAt` is when it was meant to start (its
   * jittered fire time): lateness in logs and metrics is measured from it.
   */
  onSlot(
    name: string,
    slot: Date,
    trigger: Trigger,
    dueAt = this.deps.clock.now(),
  ): ControlResponse | undefined {
    const schedule = this.schedules.get(name);
    if (schedule === undefined) return undefined;
    const decision = this.admit(schedule);
    switch (decision.kind) {
      case "launch":
        return this.launch(schedule, slot, trigger, dueAt);
      case "skip": {
        const runId = newScheduledRunId(name, slot);
        const cause = ledgerCause(decision.cause);
        return this.skipSlot({
          runId,
          schedule: name,
          slot,
          trigger,
          cause,
          detail: decision.detail,
        });
      }
      case "queue": {
        if (this.waiting.isFull(name)) {
          return this.skipSlot({
            runId: newScheduledRunId(name, slot),
            schedule: name,
            slot,
            trigger,
            cause: decision.why === "overlap" ? "overlap" : "max_concurrent",
            detail: `the queue is full (${QUEUE_LIMIT} slots of ${name} waiting)`,
          });
        }
        this.waiting.push({ schedule: name, slot, trigger, dueAt });
        const decidedMs = this.deps.clock.now() - dueAt;
        this.logAfterPass(() =>
          this.log.info(
            { schedule: name, slot: slot.toISOString(), latenessMs: decidedMs },
            decision.detail,
          ),
        );
        this.emit("queued", { schedule: name, slot, why: decision.why });
        return { id: "", ok: true, message: decision.detail };
      }
      case "replace": {
        const previous = decision.stop
          .map((id) => this.active.get(id))
          .filter((r) => r !== undefined);
        for (const run of previous)
          run.stop(`replaced by the slot of ${slot.toISOString()} (overlap = "replace")`);
        this.waiting.unshift({ schedule: name, slot, trigger, dueAt });
        void Promise.allSettled(previous.map((r) => r.done)).then(() => this.drain());
        return {
          id: "",
          ok: true,
          message: `stopping ${decision.stop.join(", ")}; the new run starts when it has ended`,
        };
      }
    }
  }

  /**
   * Logs once the current synchronous pass is over. When a thousand slots fall due on one
   * second, each is decided (and its lateness measured) before any line is serialised: the
   * lines then carry the lateness of their decision, not of their turn in the log.
   */
  private logAfterPass(line: () => void): void {
    if (this.deferredLogs.length === 0)
      queueMicrotask(() => {
        const lines = this.deferredLogs;
        this.deferredLogs = [];
        for (const write of lines) write();
      });
    this.deferredLogs.push(line);
  }

  /**
   * Launches after the current batch of decisions: when a thousand slots fall due on one
   * second, every slot is decided on time and the spawns (and their fsyncs) follow.
   */
  private launch(schedule: Schedule, slot: Date, trigger: Trigger, dueAt: number): ControlResponse {
    const runId = newScheduledRunId(schedule.name, slot);
    this.runs.reserve(schedule.name, runId);
    setImmediate(() => this.spawnRun(schedule, slot, trigger, dueAt, runId));
    return { id: "", ok: true, runId, message: `launching ${runId}` };
  }

  private spawnRun(
    schedule: Schedule,
    slot: Date,
    trigger: Trigger,
    dueAt: number,
    runId: string,
  ): void {
    if (this.stopping) {
      this.runs.settle(schedule.name, runId, undefined);
      return;
    }
    const spec = launchSpecFor(this.config, schedule, runId, slot);
    const result = launchRecorded(this.ledger, spec, trigger, {
      logger: this.log,
      env: this.runEnv,
    });
    if (result.kind === "duplicate") {
      this.runs.settle(schedule.name, runId, undefined);
      this.log.info(
        { schedule: schedule.name, slot: slot.toISOString(), runId: result.runId },
        "slot already launched (idempotency key); not launching again",
      );
      return;
    }
    const { handle } = result;
    // How late the process started: the decision, the queue and the spawn all count.
    const latenessMs = this.deps.clock.now() - dueAt;
    const fields = {
      schedule: schedule.name,
      slot: slot.toISOString(),
      runId,
      trigger,
      pid: handle.pid,
      latenessMs,
    };
    this.log.info(fields, "fired");
    this.emit("fire", { schedule: schedule.name, slot, runId, trigger, latenessMs });
    const run = { runId, schedule: schedule.name, stop: handle.stop, done: handle.done };
    this.runs.settle(schedule.name, runId, run);
    this.watch(run);
  }

  /** Follows a run to its end; then frees its place and launches what waited for it. */
  private watch(run: ActiveRun): void {
    const untrack = () => this.runs.finish(run);
    void run.done.then(
      (outcome) => {
        untrack();
        this.log.info(
          {
            schedule: run.schedule,
            runId: run.runId,
            status: outcome.status,
            stopReason: outcome.stopReason,
            durationMs: outcome.durationMs,
          },
          "run finished",
        );
        this.emit("finished", { schedule: run.schedule, runId: run.runId, outcome });
        this.drain();
      },
      (err) => {
        untrack();
        this.log.error({ err, runId: run.runId }, "run watcher failed");
        this.drain();
      },
    );
  }

  /**
   * Launches waiting slots whose obstacles are gone, oldest first. Each is decided again:
   * a schedule paused, disabled, removed or blocked by \`after\` meanwhile skips its slot.
   */
  private drain(): void {
    if (this.stopping) return;
    const pending = this.waiting.takeAll();
    for (const [i, w] of pending.entries()) {
      if (this.runs.size >= this.config.maxConcurrentRuns) {
        for (const rest of pending.slice(i)) this.waiting.push(rest);
        break;
      }
      const schedule = this.schedules.get(w.schedule);
      // A slot waits behind its own schedule's run whatever the overlap policy queued it.
      const decision =
        schedule &&
        this.admit({ ...schedule, overlap: schedule.overlap === "allow" ? "allow" : "queue" });
      if (decision?.kind === "launch") {
        this.launch(schedule!, w.slot, w.trigger, w.dueAt);
      } else if (decision?.kind === "queue") {
        this.waiting.push(w);
      } else {
        const skip = decision?.kind === "skip" ? decision : undefined;
        const cause = skip ? ledgerCause(skip.cause) : "config_error";
        const detail = skip?.detail ?? "the schedule was removed while the slot waited";
        const runId = newScheduledRunId(w.schedule, w.slot);
        const { schedule: name, slot, trigger } = w;
        this.skipSlot({ runId, schedule: name, slot, trigger, cause, detail });
      }
    }
  }

  /** `autoloop-cron fire <schedule>`: a manual run now, under the same policies. */
  fireNow(name: string): ControlResponse {
    if (!this.schedules.has(name))
      return {
        id: "",
        ok: false,
        error: `unknown schedule ${JSON.stringify(name)}; \`autoloop-cron list\` shows the loaded ones`,
      };
    return (
      this.onSlot(name, new Date(this.deps.clock.now()), "manual") ?? {
        id: "",
        ok: false,
        error: "not launched",
      }
    );
  }

  stopRun(runId: string, reason: string): ControlResponse {
    const run = this.active.get(runId);
    if (run === undefined)
      return { id: "", ok: false, error: `run ${runId} is not running under this daemon` };
    run.stop(reason);
    return { id: "", ok: true, runId, message: `stopping ${runId}` };
  }

  private handleControl(request: ControlRequest): ControlResponse {
    switch (request.action) {
      case "fire":
        return this.fireNow(request.schedule);
      case "stop":
        return this.stopRun(request.runId, request.reason);
      case "reload":
        this.reload();
        return { id: "", ok: true, message: `reloaded: ${this.schedules.size} schedules` };
    }
  }

  private tick(): void {
    this.lastTickAt = new Date(this.deps.clock.now());
    this.pause = readPauseState(this.config.stateDir);
    for (const request of takeRequests(this.config.stateDir)) {
      const response = this.handleControl(request);
      answer(this.config.stateDir, { ...response, id: request.id });
    }
    this.emit("tick", { at: this.lastTickAt });
  }

  private watchSchedules(): void {
    const onChange = () => {
      clearTimeout(this.reloadTimer);
      this.reloadTimer = setTimeout(() => {
        this.log.info("schedule files changed: reloading");
        this.reload();
      }, 200);
    };
    for (const dir of [this.config.schedulesDir, controlDir(this.config.stateDir)]) {
      try {
        mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
        const isControl = dir === controlDir(this.config.stateDir);
        const watcher = watch(dir, isControl ? () => this.tick() : onChange);
        watcher.on("error", (err) =>
          this.log.warn({ err, dir }, "cannot watch folder; relying on polling and SIGHUP"),
        );
        this.watchers.push(watcher);
      } catch (err) {
        this.log.warn({ err, dir }, "cannot watch folder; relying on polling and SIGHUP");
      }
    }
  }

  /** Stops firing; terminates or detaches running runs; resolves when done or after the grace. */
  async shutdown(
    mode: "terminate" | "detach" = this.config.onShutdown,
    graceMs = this.config.shutdownGraceMs,
  ): Promise<void> {
    this.stopping = true;
    this.queue.stop();
    clearInterval(this.tickTimer);
    clearTimeout(this.reloadTimer);
    for (const w of this.watchers) w.close();
    this.watchers = [];
    const runs = [...this.active.values()];
    if (mode === "detach") {
      this.log.info({ runs: runs.length }, "detaching running runs; the next daemon adopts them");
      return;
    }
    for (const run of runs) run.stop("daemon shutdown");
    const grace = new Promise((r) => setTimeout(r, graceMs).unref());
    await Promise.race([Promise.allSettled(runs.map((r) => r.done)), grace]);
  }
}

/** The ledger records the global kill switch as a plain pause. */

export function planSpec(s: Schedule): PlanSpec {
  return { name: s.name, cron: s.cron, timezone: s.timezone, jitterMs: s.jitterMs };
}
