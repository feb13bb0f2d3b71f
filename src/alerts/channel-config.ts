// The [[channel]] entries of autoloop-cron.toml as plain objects (src/cron/config.ts validates
// them with zod and passes them on unchanged, so keys keep the TOML spelling).

/** Sends mail through an SMTP server given as smtp://user:pass@host:port or smtps://... */
export interface EmailChannelConfig {
  name: string;
  type: "email";
  smtp_url_env?: string;
  smtp_url_file?: string;
  from: string;
  to: string[];
}

export type WebhookFormat = "standard" | "slack" | "discord";

/** POSTs signed JSON (Standard Webhooks) to a url. */
export interface WebhookChannelConfig {
  name: string;
  type: "webhook";
  /** Only when the url is not secret; Slack and Discord urls carry a token, use url_env. */
  url?: string;
  url_env?: string;
  url_file?: string;
  /** A whsec_<base64> key; without one, requests go unsigned. */
  secret_env?: string;
  secret_file?: string;
  format?: WebhookFormat;
}

/** Runs a program (argv, no shell) with the alert JSON on stdin. */
export interface CommandChannelConfig {
  name: string;
  type: "command";
  command: string[];
}

/** Writes .eml files under <state_dir>/mail/ and logs each alert: the default with no channels. */
export interface SinkChannelConfig {
  name: string;
  type: "sink";
  /** Defaults to <state_dir>/mail. */
  dir?: string;
}

export type ChannelConfig =
  | EmailChannelConfig
  | WebhookChannelConfig
  | CommandChannelConfig
  | SinkChannelConfig;

export const SINK_CHANNEL: SinkChannelConfig = { name: "sink", type: "sink" };

/** The channels alerts go to: the configured ones, or the embedded sink when there are none. */
export function effectiveChannels(configured: readonly ChannelConfig[]): ChannelConfig[] {
  return configured.length > 0 ? [...configured] : [SINK_CHANNEL];
}
