// The outbox as the config makes it (its channels opened, the embedded sink when none), and
// draining it: what a one-shot pass (`monitor --once`) waits for before it exits.
import type { Logger } from "pino";
import { effectiveChannels } from "../../scheduler/config/channels.js";
import type { CronConfig } from "../../scheduler/config/config.js";
import { type ChannelDeps, createChannels } from "../channels/create.js";
import { type AttemptOutcome, Outbox, type OutboxOptions } from "./outbox.js";

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
