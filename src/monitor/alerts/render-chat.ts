// Payloads for the chat and push services a team already reads, each to its documented shape
// and size limits: Microsoft Teams (a Workflows webhook with an Adaptive Card), Google Chat
// (an incoming webhook's text), ntfy (a JSON publish) and Telegram (the Bot API's sendMessage).
import { angleEscape, markdownEscape } from "./chat-escape.js";
import type { AlertMessage } from "./message.js";
import {
  alertCommands,
  alertFacts,
  JOURNAL_TAIL_LINES,
  type RenderContext,
  renderSubject,
  shorten,
} from "./render.js";

/** The alert as plain text: subject, summary, facts, open tasks, commands (no journal). */
function plainText(m: AlertMessage, ctx: RenderContext, withSubject: boolean): string {
  const lines = withSubject ? [renderSubject(m), ""] : [];
  lines.push(m.summary, "");
  for (const f of alertFacts(m, ctx.now)) lines.push(`${f.label}: ${f.value}`);
  if (m.gate && m.gate.openTasks.length > 0)
    lines.push("", "Open tasks:", ...m.gate.openTasks.map((t) => `- ${t.id} ${t.text}`));
  const commands = alertCommands(m);
  if (commands.length > 0) lines.push("", ...commands.map((c) => `${c.label}: ${c.value}`));
  return lines.join("\n");
}

// Teams: a Workflows webhook takes a message with one Adaptive Card (at most 28 KB in all).
const TEAMS_COLOR = {
  firing: "attention",
  reminder: "warning",
  acknowledged: "accent",
  resolved: "good",
} as const;

/** A Teams Workflows message: one Adaptive Card of `blocks`. */
export function teamsCard(blocks: object[]) {
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body: blocks,
        },
      },
    ],
  };
}

export function teamsPayload(m: AlertMessage, ctx: RenderContext) {
  const facts = alertFacts(m, ctx.now)
    .slice(0, 20)
    .map((f) => ({
      title: shorten(markdownEscape(f.label), 100),
      value: shorten(markdownEscape(f.value), 500),
    }));
  const body: object[] = [
    {
      type: "TextBlock",
      text: shorten(markdownEscape(renderSubject(m)), 300),
      weight: "Bolder",
      size: "Medium",
      color: TEAMS_COLOR[m.status],
      wrap: true,
    },
    { type: "TextBlock", text: shorten(markdownEscape(m.summary), 2000), wrap: true },
    { type: "FactSet", facts },
  ];
  const commands = alertCommands(m);
  if (commands.length > 0)
    body.push({
      type: "TextBlock",
      text: shorten(
        markdownEscape(commands.map((c) => `${c.label}: ${c.value}`).join("\n\n")),
        4000,
      ),
      wrap: true,
    });
  // The newest journal lines, as many as the 28 KB a Workflows webhook takes leave room for.
  const tail = m.journalTail.slice(-JOURNAL_TAIL_LINES);
  for (let keep = tail.length; keep > 0; keep--) {
    const text = markdownEscape(tail.slice(-keep).join("\n"));
    const withTail = teamsCard([
      ...body.slice(0, 3),
      {
        type: "TextBlock",
        text: text.slice(-6000),
        fontType: "Monospace",
        size: "Small",
        wrap: true,
      },
      ...body.slice(3),
    ]);
    if (Buffer.byteLength(JSON.stringify(withTail)) <= TEAMS_MAX_BYTES) return withTail;
  }
  return teamsCard(body);
}

/** What a Teams Workflows webhook takes, with room for the request's own overhead. */
const TEAMS_MAX_BYTES = 27 * 1024;

/** Google Chat: an incoming webhook's message text (4,096 characters at most), `<>&` escaped. */
export function googleChatPayload(m: AlertMessage, ctx: RenderContext) {
  return { text: shorten(angleEscape(plainText(m, ctx, true)), 4096) };
}

// ntfy: priority 1 (min) to 5 (urgent); tags that are emoji short codes show as emoji.
const NTFY = {
  firing: { priority: 5, tags: ["rotating_light"] },
  reminder: { priority: 4, tags: ["bell"] },
  acknowledged: { priority: 3, tags: ["eyes"] },
  resolved: { priority: 2, tags: ["white_check_mark"] },
} as const;

/** ntfy: a JSON publish to the server's root (message at most 4,096 bytes by default). */
export function ntfyPayload(
  m: AlertMessage,
  ctx: RenderContext,
  options: { topic: string; click?: string },
) {
  const how = NTFY[m.status];
  return {
    topic: options.topic,
    title: shorten(renderSubject(m), 250),
    message: shortenBytes(plainText(m, ctx, false), 4000),
    priority: how.priority,
    tags: [...how.tags, m.kind],
    ...(options.click !== undefined && { click: options.click }),
  };
}

/** Telegram: the Bot API's sendMessage, plain text (no parse mode: nothing to escape). */
export function telegramPayload(m: AlertMessage, ctx: RenderContext, options: { chatId: string }) {
  return {
    chat_id: options.chatId,
    text: shorten(plainText(m, ctx, true), 4096),
    disable_web_page_preview: true,
  };
}

/** `text` cut to at most `max` UTF-8 bytes, on a character boundary, marked when cut. */
export function shortenBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let cut = text.slice(0, max);
  while (Buffer.byteLength(cut) > max - 3) cut = cut.slice(0, -1);
  return `${cut}…`;
}
