// Builds channels from config. A channel whose config cannot work (missing secret, bad url)
// still exists, so its alerts become visible dead letters instead of a crash at startup.

import type { ChannelConfig } from "../../scheduler/config/channels.js";
import type { Redactor } from "../../util/secrets.js";
import { MalformedWebhookSecretError } from "../../util/standard-webhooks.js";
import { type CommandRunner, createCommandChannel } from "./command.js";
import { type AlertChannel, type AlertLogger, brokenChannel, errorText } from "./delivery.js";
import { createEmailChannel, type EmailChannelDeps } from "./email.js";
import { createPagingChannel } from "./paging.js";
import { createSinkChannel } from "./sink.js";
import { createWebhookChannel } from "./webhook.js";

export interface ChannelDeps {
  stateDir: string;
  logger: AlertLogger;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  redactor?: Redactor;
  runCommand?: CommandRunner;
  createTransport?: EmailChannelDeps["createTransport"];
}

function build(config: ChannelConfig, deps: ChannelDeps): AlertChannel {
  const common = {
    ...(deps.now && { now: deps.now }),
    ...(deps.redactor && { redactor: deps.redactor }),
    ...(deps.env && { env: deps.env }),
  };
  switch (config.type) {
    case "email":
      return createEmailChannel(config, {
        ...common,
        ...(deps.createTransport && { createTransport: deps.createTransport }),
      });
    case "webhook":
      return createWebhookChannel(config, common);
    case "command":
      return createCommandChannel(config, {
        ...common,
        ...(deps.runCommand && { run: deps.runCommand }),
      });
    case "sink":
      return createSinkChannel(config, { ...common, stateDir: deps.stateDir, logger: deps.logger });
    case "pagerduty":
    case "opsgenie":
      return createPagingChannel(config, common);
  }
}

/**
 * Problems `start` refuses to run with: a malformed webhook secret would sign every alert
 * wrong, and nobody would notice until the receiver rejects them all.
 */
export function refusedChannelProblems(
  configs: readonly ChannelConfig[],
  deps: ChannelDeps,
): string[] {
  const out: string[] = [];
  for (const config of configs) {
    if (config.type !== "webhook") continue;
    try {
      build(config, deps);
    } catch (err) {
      if (err instanceof MalformedWebhookSecretError) out.push(err.message);
    }
  }
  return out;
}

/** A channel for `config`, and what is wrong with the config when it cannot work. */
export function tryCreateChannel(
  config: ChannelConfig,
  deps: ChannelDeps,
): { channel: AlertChannel; problem?: string } {
  try {
    return { channel: build(config, deps) };
  } catch (err) {
    const problem = errorText(err);
    return { channel: brokenChannel(config.name, config.type, problem), problem };
  }
}

export function createChannel(config: ChannelConfig, deps: ChannelDeps): AlertChannel {
  const { channel, problem } = tryCreateChannel(config, deps);
  if (problem !== undefined) {
    deps.logger.error({ channel: config.name, error: problem }, "alert channel unusable");
  }
  return channel;
}

/** One channel per config entry; `problems` lists the unusable ones for the startup log. */
export function createChannels(
  configs: readonly ChannelConfig[],
  deps: ChannelDeps,
): { channels: AlertChannel[]; problems: string[] } {
  const problems: string[] = [];
  const channels = configs.map((config) => {
    const made = tryCreateChannel(config, deps);
    if (made.problem !== undefined) problems.push(made.problem);
    return made.channel;
  });
  return { channels, problems };
}
