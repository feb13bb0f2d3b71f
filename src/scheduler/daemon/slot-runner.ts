// A due slot's way to a running process: the slot policy's decision, the wait queue, the
// launch through the ledger, and the watch that frees the run's place when it ends.

import type { Logger } from "pino";
import type { TrackerIssue } from "../../tracker/tracker.js";
import { TurnQueue } from "../../util/turn-queue.js";
import { type Admission, admitSlot, recordSkip, type SkipRecord } from "../admission/admission.js";
import { scheduledLaunchSpec, slotCourse } from "../admission/carry-out.js";
import { pauseOnFailures } from "../admission/pause-on-failure.js";
import { SlotQueue } from "../admission/slot-queue.js";
import type { BudgetStanding } from "../budget/standing.js";
import type { CronConfig } from "../config/config.js";
import { fillObjective, type HookDelivery, keptDelivery, withDelivery } from "../hooks/delivery.js";
import type { RunHeartbeats } from "../launch/heartbeats.js";
import { withIssues } from "../launch/issue-spec.js";
import { PendingLaunch } from "../launch/launch-stop.js";
import type { RunHandle } from "../launch/launcher.js";
import type { ProcessStarter } from "../launch/process-start.js";
import { claimLaunch, startClaimed } from "../launch/recorded-launch.js";
import { pullNumberOfPayload, withReviewTarget } from "../launch/review-checkout.js";
import type { RunElsewhere } from "../launch/run-liveness.js";
import type { LaunchSpec } from "../launch/spec.js";
import type { Trigger } from "../ledger/events.js";
import type { RunLedger } from "../ledger/ledger.js";
import { newScheduledRunId } from "../ledger/scheduled-run-id.js";
import { attemptKey, slotKey } from "../ledger/slots.js";
import type { PauseState } from "../schedules/pause-state.js";
import type { Schedule } from "../schedules/schedule-file.js";
import type { DueSlot } from "../timing/fire-queue.js";
import type { ControlResponse } from "./control.js";
import type { DaemonEvents } from "./events.js";
import { type IssueStep, issuesForLaunch } from "./issue-step.js";
import type { OwedRetry } from "./retries.js";
import { type ActiveRun, RunTable } from "./run-table.js";

/** A run of a schedule with a `hook` that no delivery fired: its placeholders say nothing. */
function withoutDelivery(spec: LaunchSpec, schedule: Schedule): LaunchSpec {
  if (schedule.hook === undefined || spec.kind === "command") return spec;
  return { ...spec, objective: fillObjective(spec.objective, { id: "", payload: undefined }) };
}

/** What the runner reads from its daemon, always as things stand now. */
export interface SlotContext {
  config: CronConfig;
  ledger: RunLedger;
  log: Logger;
  /** The environment runs are launched with (the daemon's minus the config's secrets). */
  runEnv(): NodeJS.ProcessEnv;
  /** The daemon's own environment, where the trackers' tokens are read. */
  env: NodeJS.ProcessEnv;
  /** Spawns a run's process (the daemon's spawn helper); absent: from this process. */
  startProcess?: ProcessStarter | undefined;
  /** Beats for the runs the daemon launches, so other hosts see them alive. */
  heartbeats?: RunHeartbeats | undefined;
  /** The schedule's live runs launched by other hosts (their heartbeats); none: not asked. */
  elsewhere?: ((schedule: string) => readonly RunElsewhere[]) | undefined;
  now(): number;
  schedule(name: string): Schedule | undefined;
  pause(): PauseState;
  /** Reads paused.json again now (after the runner paused a schedule itself). */
  refreshPause(): void;
  killSwitch: boolean;
  stopping(): boolean;
  /** A run ended (or never spawned): true when a retry of its slot is owed (see RetryBook). */
  runEnded(runId: string): boolean;
  /** Tells the daemon's listeners (every daemon event has one payload). */
  emit<K extends keyof DaemonEvents>(event: K, payload: DaemonEvents[K][0]): void;
}

/** A slot on its way: its schedule, its instant, what fired it, when it was meant to start. */
interface SlotRef {
  schedule: Schedule;
  slot: Date;
  trigger: Trigger;
  /** Its (jittered) fire time, epoch ms: lateness is measured from here. */
  dueAt: number;
  /** A retry of the slot: its attempt and the slot's first run. */
  retry?: { attempt: number; parentRunId: string };
  /** The webhook delivery that fired it (trigger "hook"). */
  hook?: HookDelivery;
  /** The pull request a review run checks out (`fire --set pr=<n>`; else a hook's payload's). */
  pullRequest?: number;
}

/** A launch decided, its place reserved, its process not yet spawned. */
export interface Launch extends SlotRef {
  runId: string;
  /** Its schedule's budget standing when it was decided: the run's ceiling. */
  standing: BudgetStanding | undefined;
  /** The issues its run took from its schedule's `source` (taken before its claim). */
  issues?: TrackerIssue[];
}

/** A launch whose slot is claimed in the ledger, with what it will spawn. */
export interface Claimed extends Launch {
  spec: LaunchSpec;
  /** Called once it was spawned, or recorded interrupted. */
  done: () => void;
}

/** A slot with its decision, not yet carried out. */
export interface Decided extends SlotRef, Admission {
  /** When it was decided (epoch ms): a queued slot's lateness runs to here. */
  decidedAt: number;
  /** A launch's run id, its place already reserved. */
  runId: string | undefined;
}

export class SlotRunner {
  readonly runs = new RunTable();
  private readonly waiting = new SlotQueue();
  /**
   * A launch's two steps, one step per turn of the event loop: the claim (ledger records,
   * written at once), then, once the claim is on disk (the ledger's group commit fsyncs off
   * the loop), the spawn (a message to the spawn helper; a fork and exec when the daemon
   * spawns itself). One queue for both: a claim and a spawn never share a turn.
   */
  private readonly launchSteps = new TurnQueue<Launch | Claimed>(
    1,
    (step) => ("spec" in step ? this.startRun(step) : this.claimRun(step)),
    (err, step) => ("spec" in step ? this.spawnFailed(err, step) : this.launchFailed(err, step)),
  );
  /** Launches claimed and not yet spawned (the daemon's shutdown waits for them). */
  private readonly onTheirWay = new Set<Promise<void>>();

  constructor(private readonly ctx: SlotContext) {}

  /** The slot policy's decision, as things stand now (the same code `fire` uses). */
  private admit(schedule: Schedule): Admission {
    return admitSlot(schedule, {
      unclaimed: this.runs.unclaimedOf(schedule.name),
      pause: this.ctx.pause(),
      killSwitch: this.ctx.killSwitch,
      running: [
        ...this.runs.runningOf(schedule.name),
        ...(this.ctx.elsewhere?.(schedule.name) ?? []).map((r) => r.runId),
      ],
      runningTotal: this.runs.size,
      maxConcurrent: this.ctx.config.maxConcurrentRuns,
      ledger: this.ctx.ledger,
      now: this.ctx.now(),
    });
  }

  /**
   * A slot not launched: in the ledger, the log and the `skipped` event (metrics count it). A
   * retry's skip names its attempt and first run (its slot's retries end); a delivery's claims
   * a key of its own, not the delivery's, so the sender may deliver it again once the
   * schedule can run.
   */
  private skipSlot(skip: SkipRecord, ref: Pick<SlotRef, "retry" | "hook"> = {}): ControlResponse {
    if (ref.retry !== undefined) skip = { ...skip, ...ref.retry };
    if (ref.hook !== undefined)
      skip = { ...skip, key: `${ref.hook.key}~skipped@${new Date(this.ctx.now()).toISOString()}` };
    recordSkip(this.ctx.ledger, skip);
    const { runId, schedule, slot, cause, detail } = skip;
    this.ctx.log.info(
      { schedule, slot: slot.toISOString(), runId, cause },
      `slot skipped: ${detail}`,
    );
    this.ctx.emit("skipped", { schedule, slot, runId, cause, detail });
    return { id: "", ok: false, error: `not launched: ${detail}` };
  }

  /** Records a slot that will not run (an orphaned claim's that `catch_up` does not run). */
  skip(record: SkipRecord): void {
    this.skipSlot(record);
  }

  /**
   * Applies the slot policy to one slot (manual, catch-up). `dueAt` is when it was meant to
   * start (its jittered fire time): lateness in logs and metrics is measured from it.
   */
  onSlot(
    schedule: Schedule,
    slot: Date,
    trigger: Trigger,
    dueAt: number,
    hook?: HookDelivery,
    pullRequest?: number,
  ): ControlResponse {
    const decided = this.decide(schedule, slot, trigger, dueAt);
    return this.carryOut({
      ...decided,
      ...(hook !== undefined && { hook }),
      ...(pullRequest !== undefined && { pullRequest }),
    });
  }

  /**
   * The slots due at one instant, in name order: every one is decided first, then the
   * decisions are carried out (queue entries, log lines, ledger records, spawns), so that a
   * thousand schedules on one second are all decided within milliseconds of it.
   */
  onDue(due: readonly DueSlot[], dueAt: number): void {
    const decided: Decided[] = [];
    // Unjittered slots of one instant are one moment: one Date serves them all.
    let at = new Date(Number.NaN);
    for (const { name, slot } of due) {
      const schedule = this.ctx.schedule(name);
      if (schedule === undefined) continue; // removed by a reload meanwhile
      if (at.getTime() !== slot) at = new Date(slot);
      try {
        decided.push(this.decide(schedule, at, "cron", dueAt));
      } catch (err) {
        this.slotFailed(err, name);
      }
    }
    for (const d of decided)
      try {
        this.carryOut(d);
      } catch (err) {
        this.slotFailed(err, d.schedule.name);
      }
  }

  /** One slot's failure is logged; the other slots of its instant still go ahead. */
  private slotFailed(err: unknown, schedule: string): void {
    this.ctx.log.error({ err, schedule }, "a due slot could not be handled; the others go on");
  }

  /** The slot policy's decision; a launch takes its place at once, so the next decision in
   * the same pass counts it against max_concurrent_runs. */
  private decide(schedule: Schedule, slot: Date, trigger: Trigger, dueAt: number): Decided {
    const { decision, standing } = this.admit(schedule);
    const runId =
      decision.kind === "launch" ? this.reserve(schedule.name, slot, standing) : undefined;
    const decidedAt = this.ctx.now();
    return { schedule, slot, trigger, dueAt, decision, standing, decidedAt, runId };
  }

  private carryOut(d: Decided): ControlResponse {
    const { schedule, slot, trigger, dueAt, hook, pullRequest } = d;
    const name = schedule.name;
    const waiting = this.waiting.isFull(name) ? "full" : "possible";
    const elsewhere = this.ctx.elsewhere?.(name);
    const course = slotCourse(d.decision, { schedule: name, slot, trigger }, waiting, elsewhere);
    const delivery = {
      ...(hook !== undefined && { hook }),
      ...(pullRequest !== undefined && { pullRequest }),
    };
    switch (course.kind) {
      case "launch":
        return this.launch({
          schedule,
          slot,
          trigger,
          dueAt,
          runId: d.runId!,
          standing: d.standing,
          ...delivery,
        });
      case "skip":
        return this.skipSlot(course.skip, d);
      case "queue": {
        this.waiting.push({ schedule: name, slot, trigger, dueAt, ...delivery });
        const queued = {
          schedule: name,
          slot: slot.toISOString(),
          latenessMs: d.decidedAt - dueAt,
        };
        this.ctx.log.info(queued, course.detail);
        this.ctx.emit("queued", { schedule: name, slot, why: course.why });
        return { id: "", ok: true, message: course.detail };
      }
      case "replace": {
        const previous = course.stop
          .map((id) => this.runs.active.get(id))
          .filter((r) => r !== undefined);
        for (const run of previous)
          run.stop(`replaced by the slot of ${slot.toISOString()} (overlap = "replace")`);
        this.waiting.unshift({ schedule: name, slot, trigger, dueAt, ...delivery });
        void Promise.allSettled(previous.map((r) => r.done)).then(() => this.drain());
        return {
          id: "",
          ok: true,
          message: `stopping ${course.stop.join(", ")}; the new run starts when it has ended`,
        };
      }
    }
  }

  /**
   * A run id for a launch just decided, counted against max_concurrent_runs from now on, and
   * its ceiling against its schedule's budget until its claim is in the ledger.
   */
  private reserve(schedule: string, slot: Date, standing: BudgetStanding | undefined): string {
    const runId = newScheduledRunId(schedule, slot);
    this.runs.reserve(schedule, runId, standing?.kind === "open" ? standing.ceiling : undefined);
    return runId;
  }

  /**
   * Launches after the current batch of decisions: when a thousand slots fall due on one
   * second, every slot is decided on time and the spawns (and their fsyncs) follow.
   */
  private launch(launch: Launch): ControlResponse {
    if (launch.schedule.source !== undefined && launch.issues === undefined) {
      const way = this.takeIssues(launch);
      this.onTheirWay.add(way);
      void way.finally(() => this.onTheirWay.delete(way));
      return {
        id: "",
        ok: true,
        runId: launch.runId,
        message: `taking issues for ${launch.runId}`,
      };
    }
    this.launchSteps.push(launch);
    return { id: "", ok: true, runId: launch.runId, message: `launching ${launch.runId}` };
  }

  /** The issues a launch's run takes from its schedule's tracker, then the launch (or a skip). */
  private async takeIssues(l: Launch): Promise<void> {
    const { schedule, slot, trigger, runId } = l;
    const key = attemptKey(l.hook?.key ?? slotKey(schedule.name, slot), l.retry?.attempt);
    const ask = { schedule: schedule.name, source: schedule.source!, runId, slotKey: key };
    let step: IssueStep;
    try {
      step = await issuesForLaunch({
        ...ask,
        stateDir: this.ctx.config.stateDir,
        env: this.ctx.env,
      });
    } catch (err) {
      step = {
        kind: "skip",
        cause: "tracker_error",
        detail: String((err as Error)?.message ?? err),
      };
    }
    if (step.kind === "launch" && !this.ctx.stopping()) {
      this.launchSteps.push({ ...l, issues: step.issues });
      return;
    }
    this.runs.settle(schedule.name, runId, undefined);
    if (step.kind === "elsewhere")
      this.ctx.log.info(
        { schedule: schedule.name, slot: slot.toISOString(), runId },
        "another daemon over this state dir takes the slot's issues and runs it; not launching",
      );
    else if (step.kind === "skip")
      this.skipSlot({ schedule: schedule.name, slot, trigger, runId, ...step }, l);
  }

  /**
   * Starts a retry the daemon owes (`retry`), by the slot policy as things stand: launched;
   * skipped (recorded under the attempt's key, which ends the slot's retries: paused, a spent
   * budget...); or "wait" while a run of its schedule or max_concurrent_runs holds it back.
   */
  retry(schedule: Schedule, owed: OwedRetry): "launched" | "skipped" | "wait" {
    const { slot, trigger, attempt, parentRunId } = owed;
    const { decision, standing } = this.admit(schedule);
    if (decision.kind === "launch") {
      const runId = this.reserve(schedule.name, slot, standing);
      const dueAt = owed.at;
      // A delivery's retry gets its payload again (kept in the state dir).
      const hook =
        owed.hookId === undefined
          ? {}
          : { hook: keptDelivery(this.ctx.config.stateDir, schedule.name, owed.hookId) };
      this.launch({
        schedule,
        slot,
        trigger,
        dueAt,
        runId,
        standing,
        retry: { attempt, parentRunId },
        ...hook,
        ...(owed.review !== undefined && { pullRequest: owed.review }),
      });
      return "launched";
    }
    if (decision.kind !== "skip") return "wait";
    const course = slotCourse(decision, { schedule: schedule.name, slot, trigger }, "possible");
    if (course.kind === "skip") this.skipSlot(course.skip, { retry: { attempt, parentRunId } });
    return "skipped";
  }

  private launchFailed(err: unknown, l: Launch): void {
    this.runs.settle(l.schedule.name, l.runId, undefined);
    this.ctx.log.error({ err, runId: l.runId }, "a launch failed before its run started");
  }

  /** Claims the slot and records `scheduled`; the spawn waits for that to be on disk. */
  private claimRun(l: Launch): void {
    const { schedule, slot, trigger, runId } = l;
    if (this.ctx.stopping()) {
      this.runs.settle(schedule.name, runId, undefined);
      return;
    }
    const spec = scheduledLaunchSpec(
      this.ctx.config,
      this.ctx.ledger,
      schedule,
      runId,
      slot,
      l.standing,
    );
    if (l.retry !== undefined) spec.retry = l.retry;
    let launched = withReviewTarget(
      l.hook === undefined ? withoutDelivery(spec, schedule) : withDelivery(spec, l.hook),
      schedule.deliver?.review,
      l.pullRequest ?? pullNumberOfPayload(l.hook?.payload),
    );
    if (l.issues !== undefined)
      launched = withIssues(launched, l.issues, schedule.source!, this.ctx.config.stateDir);
    const claim = claimLaunch(this.ctx.ledger, launched, trigger, l.hook);
    this.runs.claimed(runId);
    if (claim.kind === "duplicate") {
      this.runs.settle(schedule.name, runId, undefined);
      this.ctx.log.info(
        { schedule: schedule.name, slot: slot.toISOString(), runId: claim.runId },
        l.retry === undefined
          ? "slot already launched (idempotency key); not launching again"
          : `attempt ${l.retry.attempt} of the slot already launched (idempotency key); not launching again`,
      );
      return;
    }
    const way = this.ctx.ledger.durable().then(
      () =>
        new Promise<void>((done) =>
          // Ahead of claims still waiting: in a burst, runs start while the rest are claimed.
          this.launchSteps.pushFirst({ ...l, spec: launched, done }),
        ),
    );
    this.onTheirWay.add(way);
    void way.finally(() => this.onTheirWay.delete(way));
  }

  /** Resolves when every launch claimed so far has been spawned or recorded interrupted. */
  async launchesSettled(): Promise<void> {
    await Promise.all(this.onTheirWay);
  }

  /** Spawns a claimed run: this turn only asks the spawn helper; the run counts once it has a pid. */
  private startRun(c: Claimed): void {
    if (this.ctx.stopping()) {
      try {
        this.ctx.ledger.interrupted(c.runId, "the daemon stopped before the run was spawned");
        this.runs.settle(c.schedule.name, c.runId, undefined);
      } finally {
        c.done();
      }
      return;
    }
    const { log: logger, startProcess: start, heartbeats } = this.ctx;
    const env = this.ctx.runEnv();
    // Stoppable from now: `stop`, the shutdown and the timeout reach a run still fetching.
    const pending = new PendingLaunch();
    this.runs.launching.set(c.runId, pending);
    const deps = { logger, env, heartbeats, pending, ...(start && { start }) };
    void startClaimed(this.ctx.ledger, c.spec, deps)
      .finally(() => this.runs.launching.delete(c.runId))
      .then(
        (handle) => this.running(c, handle),
        (err) => this.spawnFailed(err, c),
      )
      .catch((err) => this.ctx.log.error({ err, runId: c.runId }, "cannot announce a run"))
      .finally(c.done);
  }

  /** A claimed run that failed to spawn is closed in the ledger, not left pending. */
  private spawnFailed(err: unknown, c: Claimed): void {
    if (this.ctx.ledger.replay(c.runId)?.summary.status === "pending")
      this.ctx.ledger.interrupted(c.runId, `the launch failed: ${err}`);
    this.launchFailed(err, c);
    // Like any failed run: retried, or counted toward pause_after_failures.
    if (!this.ctx.runEnded(c.runId)) this.afterFailure(c.schedule.name);
  }

  private running(c: Claimed, handle: RunHandle): void {
    const { schedule, slot, trigger, dueAt, runId, retry } = c;
    const run = { runId, schedule: schedule.name, stop: handle.stop, done: handle.done };
    this.runs.settle(schedule.name, runId, run);
    this.watch(run);
    // How late the process started: the decision, the queue and the spawn all count.
    const latenessMs = this.ctx.now() - dueAt;
    const fields = {
      schedule: schedule.name,
      slot: slot.toISOString(),
      runId,
      trigger,
      // Not `pid`: that key is the daemon's own on every line.
      runPid: handle.pid,
      latenessMs,
      ...(retry && { attempt: retry.attempt, parentRunId: retry.parentRunId }),
    };
    this.ctx.log.info(fields, "fired");
    this.ctx.emit("fire", { schedule: schedule.name, slot, runId, trigger, latenessMs });
  }

  /** Takes over a run that outlived the previous daemon and follows it to its end. */
  adopt(run: ActiveRun): void {
    this.runs.adopt(run);
    this.watch(run);
  }

  /** Follows a run to its end; then frees its place and launches what waited for it. */
  private watch(run: ActiveRun): void {
    const untrack = () => this.runs.finish(run);
    void run.done.then(
      (outcome) => {
        untrack();
        this.ctx.log.info(
          {
            schedule: run.schedule,
            runId: run.runId,
            status: outcome.status,
            stopReason: outcome.stopReason,
            durationMs: outcome.durationMs,
          },
          "run finished",
        );
        this.ctx.emit("finished", { schedule: run.schedule, runId: run.runId, outcome });
        // A slot with a retry to come is not over: its schedule pauses once the retries failed.
        const retrying = this.ctx.runEnded(run.runId);
        if (outcome.status !== "completed" && !retrying) this.afterFailure(run.schedule);
        this.drain();
      },
      (err) => {
        untrack();
        this.ctx.log.error({ err, runId: run.runId }, "run watcher failed");
        this.drain();
      },
    );
  }

  /** `pause_after_failures`: a schedule whose last N runs failed pauses until resumed. */
  afterFailure(name: string): void {
    const schedule = this.ctx.schedule(name);
    if (schedule?.pauseAfterFailures === undefined) return;
    try {
      const reason = pauseOnFailures(this.ctx.config.stateDir, this.ctx.ledger, schedule);
      if (reason === undefined) return;
      this.ctx.refreshPause();
      this.ctx.log.warn(
        { schedule: name, failures: reason.failures, runs: reason.runs },
        `schedule paused after ${reason.failures} failed runs in a row (pause_after_failures); \`autoloop-cron resume ${name}\` resumes it`,
      );
    } catch (err) {
      this.ctx.log.error(
        { err, schedule: name },
        "could not pause the schedule after its failures",
      );
    }
  }

  /**
   * Launches waiting slots whose obstacles are gone, oldest first. Each is decided again:
   * a schedule paused, disabled, removed or blocked by `after` meanwhile skips its slot.
   */
  private drain(): void {
    if (this.ctx.stopping()) return;
    this.waiting.sweep((w) => {
      if (this.runs.size >= this.ctx.config.maxConcurrentRuns) return "stop";
      const schedule = this.ctx.schedule(w.schedule);
      // A slot waits behind its own schedule's run whatever the overlap policy queued it.
      const admission =
        schedule &&
        this.admit({ ...schedule, overlap: schedule.overlap === "allow" ? "allow" : "queue" });
      const decision = admission?.decision;
      if (decision?.kind === "launch") {
        const { slot, trigger, dueAt, hook, pullRequest } = w;
        const { standing } = admission!;
        const runId = this.reserve(w.schedule, slot, standing);
        // What fired it goes with it: a delivery's payload, a review's pull request.
        const fired = {
          ...(hook !== undefined && { hook }),
          ...(pullRequest !== undefined && { pullRequest }),
        };
        this.launch({ schedule: schedule!, slot, trigger, dueAt, runId, standing, ...fired });
      } else if (decision?.kind === "queue") {
        return "keep";
      } else {
        // Skipped, or its schedule gone.
        const ask = { schedule: w.schedule, slot: w.slot, trigger: w.trigger };
        const course = decision && slotCourse(decision, ask, "possible");
        const removed = {
          ...ask,
          runId: newScheduledRunId(w.schedule, w.slot),
          cause: "config_error",
          detail: "the schedule was removed while the slot waited",
        } as const;
        this.skipSlot(course?.kind === "skip" ? course.skip : removed, w);
      }
      return "take";
    });
  }
}
