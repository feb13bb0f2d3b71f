// Webhook and command payloads: Standard Webhooks JSON, Slack blocks, Discord embeds, each
// cut to the platform's size limits so a long journal never gets the request rejected.
import type { WebhookFormat } from "../../scheduler/config/channels.js";
import { angleEscape, discordEscape } from "./chat-escape.js";
import { digestWebhookBody } from "./digest-chat.js";
import { digestSubject } from "./digest-render.js";
import type { AlertMessage } from "./message.js";
import {
  alertCommands,
  alertFacts,
  JOURNAL_TAIL_LINES,
  type RenderContext,
  renderSubject,
  shorten,
} from "./render.js";
import { googleChatPayload, ntfyPayload, teamsPayload, telegramPayload } from "./render-chat.js";

export interface StandardPayload {
  type: string;
  timestamp: string;
  data: AlertMessage & { messageId: string; subject: string };
}

/** `{ type: "alert.firing", timestamp, data }` in the Standard Webhooks shape. */
export function standardPayload(message: AlertMessage, messageId: string, _ctx: RenderContext) {
  const type =
    message.kind === "digest"
      ? "digest"
      : message.kind === "test"
        ? "alert.test"
        : `alert.${message.status}`;
  const subject = message.digest ? digestSubject(message.digest) : renderSubject(message);
  const data = { messageId, subject, ...message };
  return { type, timestamp: message.occurredAt, data } satisfies StandardPayload;
}

// Slack: a section's text is at most 3000 characters, a header 150, a message 50 blocks.
const slackEscape = angleEscape;

function slackSection(text: string) {
  return { type: "section", text: { type: "mrkdwn", text: shorten(text, 3000) } };
}

export function slackPayload(m: AlertMessage, ctx: RenderContext) {
  const subject = renderSubject(m);
  const facts = alertFacts(m, ctx.now)
    .map((f) => `*${slackEscape(f.label)}:* ${slackEscape(f.value)}`)
    .join("\n");
  const blocks: object[] = [
    { type: "header", text: { type: "plain_text", text: shorten(subject, 150) } },
    slackSection(`*${slackEscape(m.title)}*\n${slackEscape(m.summary)}`),
    slackSection(facts),
  ];
  if (m.gate && m.gate.openTasks.length > 0) {
    // Ids too are the run's (its tasks file): inside backticks Slack still parses `<!here>`.
    const tasks = m.gate.openTasks.map((t) => `• \`${slackEscape(t.id)}\` ${slackEscape(t.text)}`);
    blocks.push(slackSection(`*Open tasks*\n${tasks.join("\n")}`));
  }
  const tail = m.journalTail.slice(-JOURNAL_TAIL_LINES);
  if (tail.length > 0) {
    const body = shorten(slackEscape(tail.join("\n")), 2900);
    blocks.push(slackSection(`*Last journal lines*\n\`\`\`${body}\`\`\``));
  }
  const commands = alertCommands(m).map((c) => `${c.label}: \`${slackEscape(c.value)}\``);
  if (commands.length > 0) blocks.push(slackSection(commands.join("\n")));
  // The top-level text is mrkdwn too (notifications and clients without blocks show it).
  return { text: shorten(slackEscape(`${subject}: ${m.summary}`), 3000), blocks };
}

// Discord: content 2000, embed title 256, description 4096, 25 fields of 256/1024, and
// 6000 characters over the whole embed.
const DISCORD_COLOR = {
  firing: 0xb91c1c,
  reminder: 0xb45309,
  acknowledged: 0x1d4ed8,
  resolved: 0x15803d,
} as const;

export function discordPayload(m: AlertMessage, ctx: RenderContext) {
  const subject = discordEscape(renderSubject(m));
  const fields = [...alertFacts(m, ctx.now), ...alertCommands(m)].slice(0, 25).map((f) => ({
    name: shorten(discordEscape(f.label), 256),
    value: shorten(discordEscape(f.value), 1000),
    inline: f.value.length < 40,
  }));
  const title = shorten(subject, 256);
  const footer = shorten(m.fingerprint, 200);
  const used =
    title.length + footer.length + fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
  const budget = Math.max(0, Math.min(4096, 6000 - used - 50));
  let head = `**${discordEscape(m.title)}**\n${discordEscape(m.summary)}`;
  if (m.gate && m.gate.openTasks.length > 0) {
    const tasks = m.gate.openTasks.map((t) => `- ${discordEscape(`${t.id} ${t.text}`)}`);
    head += `\n\nOpen tasks:\n${tasks.join("\n")}`;
  }
  let description = shorten(head, budget);
  const tail = m.journalTail.slice(-JOURNAL_TAIL_LINES);
  // The journal goes last and is cut inside its code block, so the block always closes.
  const room = budget - description.length - 10;
  if (tail.length > 0 && room > 20) {
    const text = shorten(tail.join("\n").replace(/```/g, "'''"), room);
    description += `\n\`\`\`\n${text}\n\`\`\``;
  }
  return {
    content: shorten(subject, 2000),
    // Run text must never ping @everyone, a role or a user.
    allowed_mentions: { parse: [] as string[] },
    embeds: [
      {
        title,
        description,
        color: DISCORD_COLOR[m.status],
        fields,
        timestamp: m.occurredAt,
        footer: { text: footer },
      },
    ],
  };
}

/** Where a chat format sends its message: ntfy's topic, Telegram's chat. */
export interface ChatTarget {
  topic?: string;
  click?: string;
  chatId?: string;
}

/** The JSON body for a webhook of the given format. */
export function webhookBody(
  format: WebhookFormat,
  message: AlertMessage,
  messageId: string,
  ctx: RenderContext,
  target: ChatTarget = {},
): string {
  const digest = message.digest && digestWebhookBody(format, message.digest, target);
  if (digest !== undefined) return digest;
  switch (format) {
    case "slack":
      return JSON.stringify(slackPayload(message, ctx));
    case "discord":
      return JSON.stringify(discordPayload(message, ctx));
    case "teams":
      return JSON.stringify(teamsPayload(message, ctx));
    case "google_chat":
      return JSON.stringify(googleChatPayload(message, ctx));
    case "ntfy":
      return JSON.stringify(
        ntfyPayload(message, ctx, {
          topic: target.topic ?? "",
          ...(target.click !== undefined && { click: target.click }),
        }),
      );
    case "telegram":
      return JSON.stringify(telegramPayload(message, ctx, { chatId: target.chatId ?? "" }));
    default:
      return JSON.stringify(standardPayload(message, messageId, ctx));
  }
}
