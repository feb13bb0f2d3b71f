// The digest in each webhook format (Standard Webhooks, Slack, Discord, Teams, Google Chat,
// ntfy, Telegram), within each service's size limits: sections that do not fit are cut,
// and a line says where the rest is (`autoloop-cron digest`).
import type { WebhookFormat } from "../../scheduler/config/channels.js";
import { angleEscape, discordEscape, markdownEscape } from "./chat-escape.js";
import {
  type DigestSection,
  digestPeriod,
  digestSections,
  digestSubject,
  digestText,
} from "./digest-render.js";
import type { DigestReport } from "./digest-report.js";
import { shorten } from "./render.js";
import { shortenBytes, teamsCard } from "./render-chat.js";

/** Where ntfy and Telegram send it (render-webhook.ts ChatTarget). */
interface Target {
  topic?: string;
  click?: string;
  chatId?: string;
}

const REST = "(cut to fit: autoloop-cron digest --since … prints all of it)";

/** Sections kept whole while `fits` holds, then a marker line: the newest facts lead. */
function fitting<T>(
  items: T[],
  build: (kept: T[], cut: boolean) => unknown,
  fits: (body: string) => boolean,
): string {
  for (let keep = items.length; keep >= 0; keep--) {
    const body = JSON.stringify(build(items.slice(0, keep), keep < items.length));
    if (fits(body) || keep === 0) return body;
  }
  return JSON.stringify(build([], true));
}

const sectionText = (s: DigestSection) => `${s.title}\n${s.lines.join("\n")}`;

function slack(report: DigestReport): string {
  const sections = digestSections(report);
  return fitting(
    sections,
    (kept, cut) => ({
      text: shorten(angleEscape(digestSubject(report)), 3000),
      blocks: [
        { type: "header", text: { type: "plain_text", text: shorten(digestSubject(report), 150) } },
        {
          type: "context",
          elements: [{ type: "mrkdwn", text: angleEscape(digestPeriod(report)) }],
        },
        ...kept.slice(0, 46).map((s) => ({
          type: "section",
          text: {
            type: "mrkdwn",
            text: shorten(`*${angleEscape(s.title)}*\n${angleEscape(s.lines.join("\n"))}`, 3000),
          },
        })),
        ...(cut || kept.length > 46
          ? [{ type: "context", elements: [{ type: "mrkdwn", text: REST }] }]
          : []),
      ],
    }),
    (body) => Buffer.byteLength(body) <= 40_000,
  );
}

function teams(report: DigestReport): string {
  const block = (text: string, extra: object = {}) => ({
    type: "TextBlock",
    text,
    wrap: true,
    ...extra,
  });
  return fitting(
    digestSections(report),
    (kept, cut) =>
      teamsCard([
        block(shorten(markdownEscape(digestSubject(report)), 300), {
          weight: "Bolder",
          size: "Medium",
        }),
        block(markdownEscape(digestPeriod(report)), { isSubtle: true }),
        ...kept.map((s) =>
          block(shorten(markdownEscape(sectionText(s)).replace(/\n/g, "\n\n"), 6000)),
        ),
        ...(cut ? [block(markdownEscape(REST), { isSubtle: true })] : []),
      ]),
    // A Workflows webhook takes 28 KB; room is left for the request's own overhead.
    (body) => Buffer.byteLength(body) <= 27 * 1024,
  );
}

/** The digest as one text, cut to `max` characters with the marker line kept. */
function cutText(report: DigestReport, max: number): string {
  const text = digestText(report);
  return text.length <= max ? text : `${shorten(text, max - REST.length - 2)}\n${REST}`;
}

function discord(report: DigestReport): string {
  return JSON.stringify({
    content: shorten(discordEscape(digestSubject(report)), 2000),
    allowed_mentions: { parse: [] as string[] },
    // An embed's description holds 4,096 characters, the whole embed 6,000.
    embeds: [
      {
        title: shorten(discordEscape(`Digest ${report.name}`), 256),
        description: shorten(discordEscape(cutText(report, 3800)), 4096),
        timestamp: report.until,
      },
    ],
  });
}

/**
 * The JSON body of a digest for a webhook of `format`; undefined for the standard format,
 * whose payload is the message itself (`type: "digest"`, the report in `data.digest`).
 */
export function digestWebhookBody(
  format: WebhookFormat,
  report: DigestReport,
  target: Target = {},
): string | undefined {
  switch (format) {
    case "slack":
      return slack(report);
    case "teams":
      return teams(report);
    case "discord":
      return discord(report);
    case "google_chat":
      return JSON.stringify({ text: shorten(angleEscape(cutText(report, 3900)), 4096) });
    case "ntfy":
      return JSON.stringify({
        topic: target.topic ?? "",
        title: shorten(digestSubject(report), 250),
        message: shortenBytes(cutText(report, 3900), 4000),
        priority: 2,
        tags: ["newspaper", "digest"],
        ...(target.click !== undefined && { click: target.click }),
      });
    case "telegram":
      return JSON.stringify({
        chat_id: target.chatId ?? "",
        text: shorten(cutText(report, 4000), 4096),
        disable_web_page_preview: true,
      });
    default:
      return undefined;
  }
}
