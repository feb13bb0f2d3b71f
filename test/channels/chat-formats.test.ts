// The chat and push services as webhook formats, each request checked against the service's
// documented payload (required fields, size limits, priority words) by a real HTTP receiver
// on 127.0.0.1; the outbox's retry rules apply as for any webhook.
import { afterEach, describe, expect, it } from "vitest";
import type { WebhookChannelConfig } from "../../src/scheduler/config/channels.js";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import { formatProblem } from "../../src/util/errors.js";
import { chatChannel, removeTempDirs, sampleDelivery, sampleMessage } from "./helpers.js";

const T0 = Date.parse("2026-11-21T01:25:00.000Z");
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  removeTempDirs();
});

/** Sends one alert (with a long journal tail) through a webhook of `format`; the request. */
async function send(
  format: WebhookChannelConfig["format"],
  extra: Partial<WebhookChannelConfig> = {},
) {
  const { receiver, channel } = await chatChannel(format, extra, cleanups);
  const long = Array.from({ length: 15 }, (_, i) => `line ${i} ${"é".repeat(600)}`);
  const delivery = sampleDelivery("chat", T0);
  delivery.message = { ...sampleMessage({ journalTail: long }), summary: "x".repeat(9000) };
  const result = await channel.send(delivery);
  expect(result).toMatchObject({ kind: "delivered" });
  const req = await receiver.requests.next();
  expect(req.headers["content-type"]).toBe("application/json");
  return JSON.parse(req.body) as Record<string, unknown>;
}

describe("chat and push formats", () => {
  it("Microsoft Teams: a message with one Adaptive Card, under 28 KB", async () => {
    const body = (await send("teams")) as {
      type: string;
      attachments: Array<{ contentType: string; content: Record<string, unknown> }>;
    };
    expect(body.type).toBe("message");
    expect(body.attachments).toHaveLength(1);
    const [card] = body.attachments;
    expect(card!.contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(card!.content).toMatchObject({ type: "AdaptiveCard", version: "1.4" });
    expect((card!.content.body as unknown[]).length).toBeGreaterThan(2);
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThan(28 * 1024);
  });

  it("Google Chat: the text of an incoming webhook, at most 4,096 characters", async () => {
    const body = (await send("google_chat")) as { text: string };
    expect(body.text.startsWith("[FIRING]")).toBe(true);
    expect(body.text.length).toBeLessThanOrEqual(4096);
  });

  it("ntfy: a JSON publish with topic, title, priority 1-5, tags and click; at most 4 KB", async () => {
    const body = (await send("ntfy", {
      topic: "oncall-alerts",
      click: "https://cron.example.com/",
    })) as {
      topic: string;
      title: string;
      message: string;
      priority: number;
      tags: string[];
      click: string;
    };
    expect(body).toMatchObject({
      topic: "oncall-alerts",
      priority: 5,
      tags: ["rotating_light", "gate_stuck"],
      click: "https://cron.example.com/",
    });
    expect(body.title.startsWith("[FIRING]")).toBe(true);
    expect(Buffer.byteLength(body.message)).toBeLessThanOrEqual(4096);
  });

  it("Telegram: sendMessage with chat_id and plain text of at most 4,096 characters", async () => {
    const body = (await send("telegram", { chatId: "-1001234567890" })) as {
      chat_id: string;
      text: string;
      parse_mode?: string;
    };
    expect(body.chat_id).toBe("-1001234567890");
    expect(body.parse_mode).toBeUndefined();
    expect(body.text.length).toBeGreaterThan(0);
    expect(body.text.length).toBeLessThanOrEqual(4096);
  });

  it("asks for the topic and the chat id, naming the fix", () => {
    const text = (format: string, extra = "") =>
      `[[channel]]\nname = "push"\ntype = "webhook"\nurl_env = "PUSH_URL"\nformat = "${format}"\n${extra}`;
    const problems = (t: string) =>
      parseConfigText("autoloop-cron.toml", t, "/srv").problems.map(formatProblem);
    expect(problems(text("ntfy"))).toEqual([
      'autoloop-cron.toml: channel[0].topic: found nothing; expected the ntfy topic (format = "ntfy")',
    ]);
    expect(problems(text("telegram"))).toEqual([
      'autoloop-cron.toml: channel[0].chat_id: found nothing; expected the chat the bot writes to (format = "telegram"), such as -1001234567890',
    ]);
    const ok = parseConfigText("autoloop-cron.toml", text("telegram", "chat_id = -100123"), "/srv");
    expect(ok.config?.channels[0]).toMatchObject({ format: "telegram", chatId: "-100123" });
  });
});
