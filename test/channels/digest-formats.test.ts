// The digest in every webhook format, through the real webhook channel to a receiver on
// 127.0.0.1: each service's shape and size limits hold for a digest far too big for them,
// and the cut says where the rest is.
import { afterEach, describe, expect, it } from "vitest";
import { buildDigest } from "../../src/monitor/alerts/digest-report.js";
import { digestMessage } from "../../src/monitor/digest-read.js";
import type { WebhookChannelConfig } from "../../src/scheduler/config/channels.js";
import type { RunSummary } from "../../src/scheduler/ledger/events.js";
import { chatChannel, removeTempDirs } from "./helpers.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  removeTempDirs();
});

const UNTIL = Date.parse("2026-11-29T06:00:00Z");

/** Forty schedules of twenty runs each, with run text that tries every chat's markup. */
function bigDigest() {
  const schedules = Array.from({ length: 40 }, (_, i) => `schedule-${i}`);
  const runsOf = (s: string): RunSummary[] =>
    Array.from({ length: 20 }, (_, j) => ({
      runId: `${s}-20261129T0${j % 6}00-abcd${j % 10}`,
      schedule: s,
      slot: new Date(UNTIL - (j + 1) * 600_000).toISOString(),
      finishedAt: new Date(UNTIL - (j + 1) * 600_000).toISOString(),
      status: j % 3 === 0 ? "failed" : "completed",
      costUsd: 0.1,
      durationMs: 90_000,
      stopReason: "<!here> @everyone [x](http://evil.example) é".repeat(3),
    }));
  const report = buildDigest({
    name: "morning",
    since: UNTIL - 86_400_000,
    until: UNTIL,
    timezone: "Europe/Berlin",
    schedules,
    runsOf,
    questions: [{ schedule: "schedule-1", run: "r", summary: "Which database? <@U123>" }],
    incidents: [{ slug: "db-down", name: "DB down", status: "open", priority: "high" }],
    spend: [{ schedule: "schedule-1", line: "schedule-1: today $2.00 of $5.00", exhausted: false }],
  });
  return digestMessage(report);
}

async function send(
  format: WebhookChannelConfig["format"],
  extra: Partial<WebhookChannelConfig> = {},
) {
  const { receiver, channel } = await chatChannel(format, extra, cleanups);
  const message = bigDigest();
  const result = await channel.send({
    entryId: "e",
    messageId: "m",
    channel: "chat",
    message,
    enqueuedAt: new Date(UNTIL).toISOString(),
    attempt: 1,
  });
  expect(result).toMatchObject({ kind: "delivered" });
  const req = await receiver.requests.next();
  return { raw: req.body, body: JSON.parse(req.body) };
}

describe("the digest in each webhook format", () => {
  it("Slack: header and sections of at most 3,000 characters, at most 50 blocks, markup escaped", async () => {
    const { body, raw } = await send("slack");
    expect(body.blocks[0]).toMatchObject({ type: "header" });
    expect(body.blocks.length).toBeLessThanOrEqual(50);
    for (const b of body.blocks.filter((x: { type: string }) => x.type === "section"))
      expect(b.text.text.length).toBeLessThanOrEqual(3000);
    expect(raw).not.toContain("<!here>");
    expect(raw).toContain("digest --since");
    expect(raw).toContain("Open incidents"); // runs are cut before what someone acts on
  });

  it("Microsoft Teams: one Adaptive Card under 28 KB, cut with a marker", async () => {
    const { body, raw } = await send("teams");
    expect(body.attachments[0].content).toMatchObject({ type: "AdaptiveCard" });
    expect(Buffer.byteLength(raw)).toBeLessThan(28 * 1024);
    expect(raw).toContain("cut to fit");
    expect(raw).toContain("Spend against budgets");
    expect(raw).not.toContain("[x](http");
  });

  it("Google Chat, Telegram, Discord and ntfy: within their text limits", async () => {
    const chat = (await send("google_chat")).body;
    expect(chat.text.length).toBeLessThanOrEqual(4096);
    expect(chat.text).toContain("cut to fit");
    expect(chat.text).toContain("DB down");
    expect(chat.text).toContain("Which database? &lt;@U123&gt;");
    expect(chat.text).not.toContain("<!here>");
    const telegram = (await send("telegram", { chatId: "-100" })).body;
    expect(telegram).toMatchObject({ chat_id: "-100" });
    expect(telegram.text.length).toBeLessThanOrEqual(4096);
    const discord = (await send("discord")).body;
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    expect(discord.embeds[0].description.length).toBeLessThanOrEqual(4096);
    const ntfy = (await send("ntfy", { topic: "ops" })).body;
    expect(ntfy).toMatchObject({ topic: "ops", priority: 2 });
    expect(Buffer.byteLength(ntfy.message)).toBeLessThanOrEqual(4000);
  });

  it("Standard Webhooks: type digest with the whole report in data.digest", async () => {
    const { body } = await send("standard");
    expect(body.type).toBe("digest");
    expect(body.data.subject).toMatch(/^\[DIGEST\] morning: 800 runs/);
    expect(body.data.digest.schedules).toHaveLength(40);
  });
});
