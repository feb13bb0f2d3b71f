// [[channel]] entries of autoloop-cron.toml: where alerts go. Secrets are only referenced
// (`*_env` / `*_file`) and never read here; the channels resolve them when they open.
import { isAbsolute, resolve } from "node:path";
import * as z from "zod";
import type { FieldProblem } from "../../util/errors.js";
import type { SecretRef } from "../../util/secrets.js";
import { argvField, channelNameField, envNameField } from "./fields.js";

export const WEBHOOK_FORMATS = [
  "standard",
  "slack",
  "discord",
  "teams",
  "google_chat",
  "ntfy",
  "telegram",
] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** Sends mail through an SMTP server given as smtp://user:pass@host:port or smtps://... */
export interface EmailChannelConfig {
  name: string;
  type: "email";
  smtpUrl: SecretRef;
  from: string;
  to: string[];
}

/** POSTs JSON (Standard Webhooks, signed when `secret` is set; or Slack/Discord) to a url. */
export interface WebhookChannelConfig {
  name: string;
  type: "webhook";
  url: SecretRef;
  /** A whsec_<base64> key; without one, requests go unsigned. */
  secret: SecretRef | undefined;
  format: WebhookFormat;
  /** ntfy: the topic to publish to; and the link a tap on the notification opens. */
  topic?: string;
  click?: string;
  /** telegram: the chat the bot writes to (its id, or @channelname). */
  chatId?: string;
}

/** Runs a program (argv, no shell) with the alert JSON on stdin. */
export interface CommandChannelConfig {
  name: string;
  type: "command";
  command: string[];
}

/**
 * Writes .eml files under <state_dir>/mail/ and logs each alert: an email channel with no
 * SMTP url, and the channel alerts go to when none is configured.
 */
export interface SinkChannelConfig {
  name: string;
  type: "sink";
  /** Defaults to <state_dir>/mail. */
  dir?: string;
}

/**
 * A paging service whose alert follows ours: triggered, acknowledged when our incident is,
 * resolved when it resolves; one alert per grouping key (PagerDuty's dedup_key, Opsgenie's
 * alias).
 */
export type PagingChannelConfig = {
  name: string;
  /** PagerDuty's integration (routing) key, or Opsgenie's API key. */
  key: SecretRef;
  /** The service's base URL (regional endpoints, tests). */
  url: string;
} & ({ type: "pagerduty" } | { type: "opsgenie" });

/** One [[channel]] entry, resolved: the one shape the config hands to the channels. */
export type ChannelConfig =
  | EmailChannelConfig
  | WebhookChannelConfig
  | CommandChannelConfig
  | SinkChannelConfig
  | PagingChannelConfig;

/** Where the paging services take events, unless `url` says otherwise. */
export const PAGING_URLS = {
  pagerduty: "https://events.pagerduty.com/v2/enqueue",
  opsgenie: "https://api.opsgenie.com",
} as const;

/**
 * The secrets each channel type holds, declared with its config: they are kept out of the
 * environment runs start with. A new channel type does not compile until it says its own.
 */
const CHANNEL_SECRETS: {
  [T in ChannelConfig["type"]]: (
    c: Extract<ChannelConfig, { type: T }>,
  ) => Array<SecretRef | undefined>;
} = {
  email: (c) => [c.smtpUrl],
  webhook: (c) => [c.url, c.secret],
  command: () => [],
  sink: () => [],
  pagerduty: (c) => [c.key],
  opsgenie: (c) => [c.key],
};

/** The secrets `channel` is configured with. */
export function channelSecrets(channel: ChannelConfig): SecretRef[] {
  const secretsOf = CHANNEL_SECRETS[channel.type] as (
    c: ChannelConfig,
  ) => Array<SecretRef | undefined>;
  return secretsOf(channel).filter((r) => r !== undefined);
}

export const SINK_CHANNEL: SinkChannelConfig = { name: "sink", type: "sink" };

/** The channels alerts go to: the configured ones, or the embedded sink when there are none. */
export function effectiveChannels(configured: readonly ChannelConfig[]): ChannelConfig[] {
  return configured.length > 0 ? [...configured] : [SINK_CHANNEL];
}

const filePath = z.string().min(1);

/** Schemas of the `<base>_env` / `<base>_file` (and, when allowed, `<base>`) keys. */
function refKeys<B extends string>(base: B) {
  return {
    [`${base}_env`]: envNameField.optional(),
    [`${base}_file`]: filePath.optional(),
  } as Record<`${B}_env` | `${B}_file`, z.ZodOptional<z.ZodString>>;
}

/**
 * Channel schemas. Email without an SMTP reference delivers to the embedded sink.
 * Webhook `format` defaults to "standard" (Standard Webhooks signing with `secret`).
 */
export const channelSchema = z.discriminatedUnion("type", [
  z.strictObject({
    name: channelNameField,
    type: z.literal("email"),
    ...refKeys("smtp_url"),
    from: z.string().min(1),
    to: z.array(z.string().min(1)).min(1),
  }),
  z
    .strictObject({
      name: channelNameField,
      type: z.literal("webhook"),
      url: z.string().url().optional(),
      ...refKeys("url"),
      ...refKeys("secret"),
      format: z.enum(WEBHOOK_FORMATS).default("standard"),
      /** format = "ntfy": the topic; `click`: the link the notification opens. */
      topic: z
        .string()
        .regex(/^[-_A-Za-z0-9]{1,64}$/, "an ntfy topic: letters, digits, - and _, at most 64")
        .optional(),
      click: z.url().optional(),
      /** format = "telegram": the chat id (a number, or @channelname). */
      chat_id: z
        .union([z.number().int(), z.string().regex(/^(-?\d+|@\w{5,})$/)], {
          error: 'a Telegram chat id: a number such as -1001234567890, or "@channelname"',
        })
        .optional(),
    })
    .superRefine((c, ctx) => {
      if (c.format === "ntfy" && c.topic === undefined)
        ctx.addIssue({
          code: "custom",
          path: ["topic"],
          message: 'the ntfy topic (format = "ntfy")',
        });
      if (c.format === "telegram" && c.chat_id === undefined)
        ctx.addIssue({
          code: "custom",
          path: ["chat_id"],
          message: 'the chat the bot writes to (format = "telegram"), such as -1001234567890',
        });
    }),
  z.strictObject({ name: channelNameField, type: z.literal("command"), command: argvField }),
  z.strictObject({
    name: channelNameField,
    type: z.literal("pagerduty"),
    /** The Events API v2 integration key of a PagerDuty service. */
    ...refKeys("routing_key"),
    url: z.url().optional(),
  }),
  z.strictObject({
    name: channelNameField,
    type: z.literal("opsgenie"),
    /** An Opsgenie API integration's key; `url`: https://api.eu.opsgenie.com in the EU. */
    ...refKeys("api_key"),
    url: z.url().optional(),
  }),
]);

/** Keys whose literal value would put a secret in the file. */
const LITERAL_SECRET_KEYS = ["smtp_url", "secret", "routing_key", "api_key"];

/** Problems for literal secrets in a raw [[channel]] table; strips them so zod does not repeat them. */
export function takeLiteralSecrets(
  file: string,
  index: number,
  raw: Record<string, unknown>,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const key of LITERAL_SECRET_KEYS) {
    if (!(key in raw)) continue;
    delete raw[key];
    problems.push({
      file,
      field: `channel[${index}].${key}`,
      found: "a secret written into the file",
      expected: `${key}_env (the name of an environment variable holding it) or ${key}_file (a file containing it)`,
    });
  }
  return problems;
}

type ParsedChannel = z.output<typeof channelSchema>;

/** Resolves parsed channels: one reference per secret, file paths absolute, names unique. */
export function resolveChannels(
  parsed: ParsedChannel[],
  file: string,
  dir: string,
): { channels: ChannelConfig[]; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const channels: ChannelConfig[] = [];
  const seen = new Map<string, number>();
  parsed.forEach((c, i) => {
    const problem = (key: string, found: string, expected: string) =>
      problems.push({ file, field: `channel[${i}].${key}`, found, expected });
    const first = seen.get(c.name);
    if (first !== undefined) {
      problem(
        "name",
        JSON.stringify(c.name),
        `a name no other channel has (channel[${first}] has it)`,
      );
    }
    seen.set(c.name, first ?? i);
    const ref = (base: string, allowLiteral: boolean) => {
      const r = secretRef(c as Record<string, unknown>, base, dir, allowLiteral);
      if (r !== undefined && "problem" in r) {
        problem(base, "several references", r.problem);
        return null; // reported; not "missing"
      }
      return r;
    };
    if (c.type === "email") {
      const smtpUrl = ref("smtp_url", false);
      // Without an SMTP server, mail goes to the embedded sink (.eml files under state_dir).
      if (smtpUrl) channels.push({ name: c.name, type: "email", smtpUrl, from: c.from, to: c.to });
      else if (smtpUrl === undefined) channels.push({ name: c.name, type: "sink" });
    } else if (c.type === "pagerduty" || c.type === "opsgenie") {
      const base = c.type === "pagerduty" ? "routing_key" : "api_key";
      const key = ref(base, false);
      if (key === undefined) problem(base, "nothing", `${base}_env or ${base}_file`);
      else if (key !== null)
        channels.push({ name: c.name, type: c.type, key, url: c.url ?? PAGING_URLS[c.type] });
    } else if (c.type === "webhook") {
      const url = ref("url", true);
      if (url === undefined) problem("url", "nothing", "url_env, url_file or url");
      else if (url !== null)
        channels.push({
          name: c.name,
          type: "webhook",
          url,
          secret: ref("secret", false) ?? undefined,
          format: c.format,
          ...(c.topic !== undefined && { topic: c.topic }),
          ...(c.click !== undefined && { click: c.click }),
          ...(c.chat_id !== undefined && { chatId: String(c.chat_id) }),
        });
    } else {
      const [program, ...args] = c.command;
      // A relative program path with a slash is relative to the config file, like other paths.
      const argv0 =
        program!.includes("/") && !isAbsolute(program!) ? resolve(dir, program!) : program!;
      channels.push({ name: c.name, type: "command", command: [argv0, ...args] });
    }
  });
  return { channels, problems };
}

/** The single reference given for `base`; a problem when several are given. */
export function secretRef(
  raw: Record<string, unknown>,
  base: string,
  dir: string,
  allowLiteral: boolean,
): SecretRef | undefined | { problem: string } {
  const given = [`${base}_env`, `${base}_file`, ...(allowLiteral ? [base] : [])].filter(
    (k) => raw[k] !== undefined,
  );
  if (given.length > 1) return { problem: `only one of ${given.join(", ")}` };
  const env = raw[`${base}_env`];
  const file = raw[`${base}_file`];
  if (typeof env === "string") return { kind: "env", name: env };
  if (typeof file === "string") {
    return { kind: "file", path: isAbsolute(file) ? file : resolve(dir, file) };
  }
  const literal = raw[base];
  if (allowLiteral && typeof literal === "string") return { kind: "literal", value: literal };
  return undefined;
}
