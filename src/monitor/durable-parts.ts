// The monitor's durable parts, opened from config: the outbox with its channels, and the run
// tracker's snapshot (restored at start, so a restart with nothing new sends nothing).
import { existsSync, readFileSync, rmSync } from "node:fs";
import type { Logger } from "pino";
import { effectiveChannels } from "../scheduler/config/channels.js";
import type { CronConfig } from "../scheduler/config/config.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import { writeFileAtomic, writeFileAtomicAsync } from "../util/atomic-write.js";
import { type ChannelDeps, createChannels } from "./channels/create.js";
import type { TrackerSnapshot } from "./detect/run-tracker.js";
import { type AttemptOutcome, Outbox, type OutboxOptions } from "./outbox/outbox.js";
import type { MonitorPaths } from "./paths.js";

/** An outbox on `path` with the config's channels (the embedded sink when none). */
export function openOutbox(
  config: CronConfig,
  logger: Logger,
  options: Omit<OutboxOptions, "channels" | "logger"> & { channelDeps?: Partial<ChannelDeps> },
): Outbox {
  const { channelDeps, ...rest } = options;
  const configs = effectiveChannels(config.channels);
  const { channels, problems } = createChannels(configs, {
    stateDir: config.stateDir,
    logger,
    ...channelDeps,
  });
  for (const problem of problems) logger.error({ problem }, "alert channel unusable");
  return Outbox.open({ ...rest, channels, logger });
}

/** Where a schedule's alerts go: its `alert`, else `[monitor] alert`, else every channel. */
export function channelsFor(
  config: CronConfig,
  available: readonly string[],
  schedule: Schedule | undefined,
): string[] {
  const own = schedule?.alert ?? [];
  const wanted = own.length > 0 ? own : config.monitor.alert;
  const known = wanted.filter((name) => available.includes(name));
  return known.length > 0 ? known : [...available];
}

/**
 * The saved tracker snapshot. Without one, saved positions are useless (the runs they skip
 * past would be unknown), so they are dropped and every journal is read again from 0.
 */
export function loadTracker(paths: MonitorPaths, logger: Logger): TrackerSnapshot | undefined {
  let snapshot: TrackerSnapshot | undefined;
  try {
    const parsed = JSON.parse(readFileSync(paths.tracker, "utf8")) as Partial<TrackerSnapshot>;
    if (Array.isArray(parsed.runs) && typeof parsed.offsets === "object" && parsed.marks)
      snapshot = parsed as TrackerSnapshot;
    else logger.warn({ file: paths.tracker }, "monitor: tracker snapshot malformed; ignoring it");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT")
      logger.warn({ file: paths.tracker, err }, "monitor: tracker snapshot unreadable");
  }
  if (snapshot === undefined && existsSync(paths.positions)) {
    logger.warn("monitor: no run tracker snapshot; re-reading every journal from the start");
    rmSync(paths.positions, { force: true });
  }
  return snapshot;
}

export function saveTracker(paths: MonitorPaths, snapshot: TrackerSnapshot | string): void {
  writeFileAtomic(paths.tracker, trackerFileText(snapshot));
}

/** The same save off the event loop, for the periodic flush. */
export function saveTrackerInBackground(
  paths: MonitorPaths,
  /** `RunTracker.snapshotParts()`: written one after another, never joined. */
  parts: readonly string[],
): Promise<void> {
  return writeFileAtomicAsync(paths.tracker, [...parts, "\n"]);
}

function trackerFileText(snapshot: TrackerSnapshot | string): string {
  return `${typeof snapshot === "string" ? snapshot : JSON.stringify(snapshot)}\n`;
}

/** Delivers what is due until nothing is left or the next retry lies past `limitMs`. */
export async function drainOutbox(
  outbox: Outbox,
  now: () => number,
  limitMs: number,
): Promise<AttemptOutcome[]> {
  const deadline = Date.now() + limitMs;
  const outcomes: AttemptOutcome[] = [];
  for (;;) {
    outcomes.push(...(await outbox.deliverDue()));
    const next = outbox.nextDueAt();
    if (next === undefined) return outcomes;
    const wait = Math.max(0, next - now());
    if (Date.now() + wait > deadline) return outcomes;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
