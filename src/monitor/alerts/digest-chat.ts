// The digest in each chat format (Slack, Teams, Discord, Google Chat, ntfy, Telegram) within
// each service's size limits: whole sections are left out until it fits, schedules' runs
// first, and a last line says where the rest is (`autoloop-cron digest`).
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

/**
 * What `render` makes of as many whole sections as `fits` allows, `cut` set once any is left
 * out: schedules' runs go first, from the last, then the rest (questions, incidents and spend
 * are what someone acts on).
 */
function fitting(
  sections: DigestSection[],
  render: (kept: DigestSection[], cut: boolean) => string,
  fits: (body: string) => boolean,
): string {
  const order = sections.map((s, i) => ({ s, i }));
  order.sort((a, b) => Number(b.s.runs) - Number(a.s.runs) || b.i - a.i);
  for (let drop = 0; drop < sections.length; drop++) {
    const gone = new Set(order.slice(0, drop).map((o) => o.s));
    const body = render(
      sections.filter((s) => !gone.has(s)),
      drop > 0,
    );
    if (fits(body)) return body;
  }
  return render([], true);
}

const sectionText = (s: DigestSection) => `${s.title}\n${s.lines.join("\n")}`;

// Slack: a header of 150 characters, sections of 3,000, at most 50 blocks.
function slack(report: DigestReport): string {
  const subject = digestSubject(report);
  const context = (text: string) => ({ type: "context", elements: [{ type: "mrkdwn", text }] });
  const section = (s: DigestSection) => ({
    type: "section",
    text: {
      type: "mrkdwn",
      text: shorten(angleEscape(`*${s.title}*\n${s.lines.join("\n")}`), 3000),
    },
  });
  return fitting(
    digestSections(report),
    (kept, cut) =>
      JSON.stringify({
        text: shorten(angleEscape(subject), 3000),
        blocks: [
          { type: "header", text: { type: "plain_text", text: shorten(subject, 150) } },
          context(angleEscape(digestPeriod(report))),
          ...kept.map(section),
          ...(cut ? [context(REST)] : []),
        ],
      }),
    (body) => (JSON.parse(body).blocks as unknown[]).length <= 50 && body.length <= 40_000,
  );
}

// Teams: a Workflows webhook takes one Adaptive Card, 28 KB in all.
function teams(report: DigestReport): string {
  const block = (text: string, extra: object = {}) => ({
    type: "TextBlock",
    text,
    wrap: true,
    ...extra,
  });
  const heading = { weight: "Bolder", size: "Medium" };
  return fitting(
    digestSections(report),
    (kept, cut) =>
      JSON.stringify(
        teamsCard([
          block(shorten(markdownEscape(digestSubject(report)), 300), heading),
          block(markdownEscape(digestPeriod(report)), { isSubtle: true }),
          ...kept.map((s) =>
            block(shorten(markdownEscape(sectionText(s)), 6000).replace(/\n/g, "\n\n")),
          ),
          ...(cut ? [block(markdownEscape(REST), { isSubtle: true })] : []),
        ]),
      ),
    // Room is left for the request's own overhead.
    (body) => Buffer.byteLength(body) <= 27 * 1024,
  );
}

/** The digest as one text of at most `max` characters (escaped by `markup`). */
function cutText(report: DigestReport, max: number, markup = (t: string) => t): string {
  const text = fitting(
    digestSections(report),
    (kept, cut) => markup(`${digestText(report, kept)}${cut ? `\n${REST}\n` : ""}`),
    (t) => t.length <= max,
  );
  return shorten(text, max);
}

// Discord: an embed's description holds 4,096 characters, the whole embed 6,000.
function discord(report: DigestReport): string {
  return JSON.stringify({
    content: shorten(discordEscape(digestSubject(report)), 2000),
    allowed_mentions: { parse: [] as string[] },
    embeds: [
      {
        title: shorten(discordEscape(`Digest ${report.name}`), 256),
        description: cutText(report, 4000, discordEscape),
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
      // An incoming webhook's text: 4,096 characters.
      return JSON.stringify({ text: cutText(report, 4096, angleEscape) });
    case "ntfy":
      // A message of at most 4,096 bytes by default.
      return JSON.stringify({
        topic: target.topic ?? "",
        title: shorten(digestSubject(report), 250),
        message: shortenBytes(cutText(report, 4000), 4000),
        priority: 2,
        tags: ["newspaper", "digest"],
        ...(target.click !== undefined && { click: target.click }),
      });
    case "telegram":
      // sendMessage: 4,096 characters, plain text.
      return JSON.stringify({
        chat_id: target.chatId ?? "",
        text: cutText(report, 4096),
        disable_web_page_preview: true,
      });
    default:
      return undefined;
  }
}
