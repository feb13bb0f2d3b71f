import { describe, expect, it } from "vitest";
import { messageIdHeader, threadRootHeader } from "../../src/monitor/alerts/message.js";
import { redactMessage, renderSubject, renderText } from "../../src/monitor/alerts/render.js";
import { renderHtml } from "../../src/monitor/alerts/render-html.js";
import {
  discordPayload,
  slackPayload,
  standardPayload,
} from "../../src/monitor/alerts/render-webhook.js";
import { formatAlertTime, relativeTime } from "../../src/monitor/alerts/time-text.js";
import { escapeHtml } from "../../src/util/html-escape.js";
import { Redactor } from "../../src/util/secrets.js";
import { sampleMessage } from "../channels/helpers.js";

const NOW = Date.parse("2026-11-21T01:25:00.000Z");

describe("subject", () => {
  it("shows status, kind, schedule and run", () => {
    expect(renderSubject(sampleMessage())).toBe(
      "[FIRING] gate stuck: nightly-fix run-20261121-0200-ab12",
    );
    expect(renderSubject(sampleMessage({ status: "resolved" }))).toMatch(
      /^\[RESOLVED\] gate stuck/,
    );
    expect(renderSubject(sampleMessage({ status: "reminder", reminder: 2 }))).toMatch(
      /^\[REMINDER 2\] gate stuck/,
    );
  });

  it("falls back to the title and never contains a line break", () => {
    const m = sampleMessage({ schedule: undefined, runId: undefined, title: "bad\r\nBcc: x" });
    expect(renderSubject(m)).toBe("[FIRING] gate stuck: bad Bcc: x");
  });
});

describe("times", () => {
  it("shows the schedule's zone, UTC and how long ago", () => {
    expect(formatAlertTime("2026-11-21T01:20:00.000Z", "Europe/Berlin", NOW)).toBe(
      "2026-11-21 02:20:00 Europe/Berlin (2026-11-21 01:20:00 UTC, 5 min ago)",
    );
    expect(formatAlertTime("2026-11-21T01:20:00.000Z", "UTC", NOW)).toBe(
      "2026-11-21 01:20:00 UTC (5 min ago)",
    );
    expect(formatAlertTime("2026-11-21T01:20:00.000Z", "Not/AZone", NOW)).toContain("UTC");
  });

  it("counts minutes, hours and days", () => {
    expect(relativeTime(NOW - 30_000, NOW)).toBe("just now");
    expect(relativeTime(NOW - 3 * 3_600_000, NOW)).toBe("3 h ago");
    expect(relativeTime(NOW - 3 * 86_400_000, NOW)).toBe("3 d ago");
    expect(relativeTime(NOW + 5 * 60_000, NOW)).toBe("in 5 min");
  });
});

describe("text body", () => {
  it("carries the facts, open tasks, journal tail and commands", () => {
    const text = renderText(
      sampleMessage({ objective: "x".repeat(500), journalTail: ["a", "b"] }),
      { now: NOW },
    );
    expect(text).toContain("Schedule:");
    expect(text).toContain("nightly-fix");
    expect(text).toContain("Preset:");
    expect(text).toContain(`${"x".repeat(199)}…`);
    expect(text).not.toContain("x".repeat(201));
    expect(text).toContain("Gate:             task.gate, refused 3 times");
    expect(text).toContain("  - [t2] add a regression test");
    expect(text).toContain("Last 2 journal lines:\n  a\n  b");
    expect(text).toContain("autoloop-cron stop run-20261121-0200-ab12");
    expect(text).toContain("/srv/app/.autoloop/journal.jsonl");
    expect(text).toContain("5 min ago");
  });

  it("keeps only the last 15 journal lines, redacted as the outbox records them", () => {
    const redactor = new Redactor();
    redactor.add("tok-12345");
    const tail = Array.from({ length: 20 }, (_, i) => `line ${i} tok-12345`);
    const recorded = redactMessage(sampleMessage({ journalTail: tail }), redactor);
    const text = renderText(recorded, { now: NOW });
    expect(text).not.toContain("line 4 ");
    expect(text).toContain("line 5 [REDACTED]");
    expect(text).not.toContain("tok-12345");
  });
});

describe("html body", () => {
  it("escapes everything that came from the journal or the config", () => {
    const html = renderHtml(
      sampleMessage({
        objective: '<script>alert("x")</script>',
        journalTail: ["<img src=x onerror=alert(1)>"],
        gate: { topic: "t", openTasks: [{ id: "<b>", text: "a & b" }], refusals: 1, since: "" },
      }),
      { now: NOW },
    );
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(html).toContain("<code>&lt;b&gt;</code> a &amp; b");
    expect(escapeHtml(`'"<>&`)).toBe("&#39;&quot;&lt;&gt;&amp;");
  });
});

describe("threading ids", () => {
  it("gives one thread root per incident and one Message-ID per message", () => {
    expect(threadRootHeader("a")).toBe(threadRootHeader("a"));
    expect(threadRootHeader("a")).not.toBe(threadRootHeader("b"));
    expect(threadRootHeader("a")).toMatch(/^<incident-[0-9a-f]{24}@autoloop-cron>$/);
    expect(messageIdHeader("abc")).toBe("<abc@autoloop-cron>");
  });
});

describe("webhook payloads", () => {
  it("standard: alert.<status> with the message as data", () => {
    const p = standardPayload(sampleMessage({ status: "resolved" }), "msg_1", { now: NOW });
    expect(p.type).toBe("alert.resolved");
    expect(p.timestamp).toBe("2026-11-21T01:20:00.000Z");
    expect(p.data.messageId).toBe("msg_1");
    expect(p.data.runId).toBe("run-20261121-0200-ab12");
    expect(standardPayload(sampleMessage({ kind: "test" }), "m", { now: NOW }).type).toBe(
      "alert.test",
    );
  });

  it("slack: stays within block limits and escapes mrkdwn", () => {
    const huge = Array.from({ length: 15 }, () => "<@U123> ".repeat(100));
    const p = slackPayload(sampleMessage({ journalTail: huge }), { now: NOW });
    expect(p.text).toMatch(/^\[FIRING\] gate stuck/);
    for (const block of p.blocks as Array<{ text: { text: string } }>) {
      expect(block.text.text.length).toBeLessThanOrEqual(3000);
      expect(block.text.text).not.toContain("<@U123>");
    }
  });

  it("discord: stays within embed limits and never pings", () => {
    const huge = Array.from({ length: 15 }, () => "@everyone ".repeat(200));
    const p = discordPayload(sampleMessage({ journalTail: huge, objective: "o".repeat(5000) }), {
      now: NOW,
    });
    const embed = p.embeds[0]!;
    const total =
      embed.title.length +
      embed.description.length +
      embed.footer.text.length +
      embed.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
    expect(total).toBeLessThanOrEqual(6000);
    expect(embed.description.length).toBeLessThanOrEqual(4096);
    expect(p.content.length).toBeLessThanOrEqual(2000);
    expect(p.allowed_mentions.parse).toEqual([]);
  });
});
