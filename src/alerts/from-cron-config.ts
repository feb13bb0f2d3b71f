// Adapts the channels src/cron/config.ts hands over (secret references already picked and
// paths made absolute) to ChannelConfig. Typed structurally, so alerts does not import cron.
import type { ChannelConfig, WebhookFormat } from "./channel-config.js";

export type ConfigSecretRef =
  | { kind: "env"; name: string }
  | { kind: "file"; path: string }
  | { kind: "literal"; value: string };

export type ConfigChannel =
  | {
      name: string;
      type: "email";
      smtpUrl: ConfigSecretRef | undefined;
      from: string;
      to: string[];
    }
  | {
      name: string;
      type: "webhook";
      url: ConfigSecretRef;
      secret: ConfigSecretRef | undefined;
      format: WebhookFormat;
    }
  | { name: string; type: "command"; command: string[] };

function refKeys(base: string, ref: ConfigSecretRef | undefined): Record<string, string> {
  if (ref === undefined) return {};
  if (ref.kind === "env") return { [`${base}_env`]: ref.name };
  if (ref.kind === "file") return { [`${base}_file`]: ref.path };
  return { [base]: ref.value };
}

/** One ChannelConfig per configured channel; an email channel with no SMTP url is the sink. */
export function channelConfigFromCron(c: ConfigChannel): ChannelConfig {
  switch (c.type) {
    case "email":
      if (c.smtpUrl === undefined) return { name: c.name, type: "sink" };
      if (c.smtpUrl.kind === "literal") {
        // The config schema refuses literal SMTP urls; this only guards against misuse.
        throw new Error(
          `channel "${c.name}": smtp_url must come from smtp_url_env or smtp_url_file`,
        );
      }
      return {
        name: c.name,
        type: "email",
        from: c.from,
        to: c.to,
        ...refKeys("smtp_url", c.smtpUrl),
      };
    case "webhook":
      return {
        name: c.name,
        type: "webhook",
        format: c.format,
        ...refKeys("url", c.url),
        ...refKeys("secret", c.secret),
      };
    case "command":
      return { name: c.name, type: "command", command: c.command };
  }
}
