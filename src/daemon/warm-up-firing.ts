// A crowded second's first pass would run its code cold: V8 compiles each function on first
// use and optimizes it once it is hot, and the first thousand slots due on one second took
// 3-9 ms to decide where a later pass took 1-2 ms. Before the daemon serves, a sample of
// schedules due every minute goes through the same fire queue and slot runner for a few
// minutes of a clock of its own, in a context that launches nothing and writes nothing: every
// slot is queued (no run may start: max_concurrent_runs = 0), and both are then dropped.
import { pino } from "pino";
import { QUEUE_LIMIT } from "../admission/slot-queue.js";
import type { CronConfig } from "../config/config.js";
import type { RunLedger } from "../ledger/ledger.js";
import { parseScheduleFile, type Schedule, scheduleDefaults } from "../schedules/schedule-file.js";
import { FireQueue } from "../timing/fire-queue.js";
import { SlotRunner } from "./slot-runner.js";

/** Schedules in the sample, all due every minute. */
const SAMPLE = 300;
/**
 * Minutes the sample goes through: 2,700 decisions, ~50 ms of a start. After one pass of 300
 * V8 had not optimized the pass's functions yet, and a first crowded second then compiled
 * them as it went and took 3-9 ms to decide, against 1-2 ms. One less than the slots a
 * schedule may have waiting: one more would find its queue full and reach the ledger.
 */
const PASSES = QUEUE_LIMIT - 1;
/** The first instant (any fixed one: the clock below is the queue's only clock). */
const INSTANT = Date.UTC(2000, 0, 1);

/** A ledger the warm-up must never reach: a queued slot writes nothing. */
const NO_LEDGER = new Proxy({} as RunLedger, {
  get(_target, key) {
    throw new Error(`the firing warm-up reached the ledger (${String(key)})`);
  },
});

/** The sample, parsed as the daemon parses a file: the same kind of objects as a real pass. */
function sampleSchedules(config: CronConfig): Map<string, Schedule> {
  let text = "";
  for (let i = 0; i < SAMPLE; i++)
    text += `[[schedule]]\nname = "warm-${i}"\ncron = "* * * * *"\ntimezone = "UTC"\nkind = "command"\ncommand = ["true"]\n`;
  const parsed = parseScheduleFile("(firing warm-up)", text, scheduleDefaults(config), {
    fileDir: config.dir,
    configDir: config.dir,
  });
  return new Map(parsed.schedules.map((s) => [s.name, s]));
}

/**
 * Runs crowded instants of sample schedules through a fire queue and a slot runner of their
 * own, on a clock of its own; returns how many slots were decided (all queued).
 */
export function warmUpFiringPass(config: CronConfig): number {
  const schedules = sampleSchedules(config);
  let now = INSTANT - 1_000;
  let wake: (() => void) | undefined;
  let queued = 0;
  const runner = new SlotRunner({
    config: { ...config, maxConcurrentRuns: 0 },
    ledger: NO_LEDGER,
    log: pino({ level: "silent" }),
    runEnv: {},
    now: () => now,
    schedule: (name) => schedules.get(name),
    pause: () => ({ all: false, schedules: [] }),
    killSwitch: false,
    stopping: () => false,
    emit: (event) => {
      if (event === "queued") queued++;
    },
  });
  const queue = new FireQueue(
    (event) => {
      if (event.kind === "due") runner.onDue(event.slots, event.fireAt.getTime());
    },
    {
      now: () => now,
      setTimeout: (fn) => {
        wake = fn;
        return fn;
      },
      clearTimeout: () => {
        wake = undefined;
      },
    },
    {
      onHandlerError: (err) => {
        throw err;
      },
    },
  );
  for (const schedule of schedules.values()) queue.upsert(schedule);
  queue.start();
  // The queue wakes before each instant to put it in name order, then at the instant.
  for (let pass = 0; pass < PASSES; pass++) {
    const instant = INSTANT + pass * 60_000;
    for (const at of [instant - 40, instant]) {
      now = at;
      wake?.();
    }
  }
  queue.stop();
  return queued;
}
