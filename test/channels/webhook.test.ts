import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createChannel } from "../../src/monitor/channels/create.js";
import type { AlertChannel } from "../../src/monitor/channels/delivery.js";
import { createWebhookChannel } from "../../src/monitor/channels/webhook.js";
import { Outbox } from "../../src/monitor/outbox/outbox.js";
import type { DeadLetter } from "../../src/monitor/outbox/record.js";
import type { WebhookChannelConfig } from "../../src/scheduler/config/channels.js";
import { Redactor } from "../../src/util/secrets.js";
import {
  collectingLogger,
  type Reply,
  removeTempDirs,
  sampleDelivery,
  sampleMessage,
  startReceiver,
  tempDir,
  verifyStandardWebhook,
} from "./helpers.js";

const T0 = Date.parse("2026-11-21T01:25:00.000Z");
const SECRET = `whsec_${Buffer.from("a test key of 32 bytes, not real").toString("base64")}`;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  removeTempDirs();
});

async function setup(
  replies: Reply[],
  options: {
    format?: WebhookConfigFormat;
    secret?: boolean;
    onDead?: (d: DeadLetter) => void;
    redactor?: Redactor;
  } = {},
) {
  const receiver = await startReceiver(replies);
  cleanups.push(() => receiver.close());
  const config: WebhookChannelConfig = {
    name: "hook",
    type: "webhook",
    url: { kind: "env", name: "HOOK_URL" },
    format: options.format ?? "standard",
    secret: options.secret !== false ? { kind: "env", name: "HOOK_SECRET" } : undefined,
  };
  const channel: AlertChannel = createChannel(config, {
    stateDir: tempDir(),
    logger: collectingLogger(),
    env: { HOOK_URL: receiver.url, HOOK_SECRET: SECRET },
    ...(options.redactor && { redactor: options.redactor }),
  });
  let now = T0;
  const outbox = Outbox.open({
    path: join(tempDir(), "outbox.jsonl"),
    channels: [channel],
    now: () => now,
    random: () => 0.5,
    ...(options.onDead && { onDead: options.onDead }),
    ...(options.redactor && { redactor: options.redactor }),
  });
  cleanups.push(() => outbox.close());
  return { receiver, outbox, setNow: (t: number) => (now = t) };
}
type WebhookConfigFormat = WebhookChannelConfig["format"];

const literal = (value: string) => ({ kind: "literal" as const, value });

describe("webhook channel (real HTTP receiver on 127.0.0.1)", () => {
  it("POSTs Standard Webhooks JSON with a signature the receiver can verify", async () => {
    const { receiver, outbox } = await setup([{ status: 204 }]);
    const [entry] = outbox.enqueue(sampleMessage(), ["hook"]);
    const [outcome] = await outbox.deliverDue(T0);
    expect(outcome).toMatchObject({ kind: "delivered", response: "HTTP 204" });
    const req = await receiver.requests.next();
    expect(req.method).toBe("POST");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["webhook-id"]).toBe(entry!.messageId);
    expect(Math.abs(Number(req.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(verifyStandardWebhook(SECRET, req.headers, req.body)).toBe(true);
    expect(verifyStandardWebhook(SECRET, req.headers, `${req.body} `)).toBe(false);
    const body = JSON.parse(req.body);
    expect(body).toMatchObject({
      type: "alert.firing",
      timestamp: "2026-11-21T01:20:00.000Z",
      data: { messageId: entry!.messageId, kind: "gate_stuck", schedule: "nightly-fix" },
    });
  });

  it("retries a 500 and delivers on the 200, with the same webhook-id", async () => {
    const { receiver, outbox, setNow } = await setup([
      { status: 500, body: "oops" },
      { status: 200 },
    ]);
    outbox.enqueue(sampleMessage(), ["hook"]);
    expect((await outbox.deliverDue(T0))[0]).toMatchObject({
      kind: "retrying",
      error: "HTTP 500: oops",
    });
    setNow(T0 + 2_500);
    expect((await outbox.deliverDue(T0 + 2_500))[0]).toMatchObject({ kind: "delivered" });
    const [a, b] = receiver.requests.all;
    expect(a!.headers["webhook-id"]).toBe(b!.headers["webhook-id"]);
    expect(verifyStandardWebhook(SECRET, b!.headers, b!.body)).toBe(true);
  });

  it("honours Retry-After on a 429", async () => {
    const { outbox } = await setup([
      { status: 429, headers: { "retry-after": "120" } },
      { status: 200 },
    ]);
    outbox.enqueue(sampleMessage(), ["hook"]);
    expect((await outbox.deliverDue(T0))[0]).toMatchObject({
      kind: "retrying",
      nextAt: T0 + 120_000,
    });
    expect(await outbox.deliverDue(T0 + 119_999)).toEqual([]);
    expect((await outbox.deliverDue(T0 + 120_000))[0]).toMatchObject({ kind: "delivered" });
  });

  it("makes a 404 a dead letter and calls onDead", async () => {
    const dead: DeadLetter[] = [];
    const { outbox } = await setup([{ status: 404, body: "no such hook" }], {
      onDead: (d) => dead.push(d),
    });
    outbox.enqueue(sampleMessage(), ["hook"]);
    expect((await outbox.deliverDue(T0))[0]).toMatchObject({
      kind: "dead",
      error: "HTTP 404: no such hook",
    });
    expect(dead.map((d) => [d.channel, d.error])).toEqual([["hook", "HTTP 404: no such hook"]]);
    expect(outbox.status(T0).deadLetters).toHaveLength(1);
  });

  it("does not follow a redirect", async () => {
    const { receiver, outbox } = await setup([
      { status: 302, headers: { location: "http://127.0.0.1:1/x" } },
    ]);
    outbox.enqueue(sampleMessage(), ["hook"]);
    const [o] = await outbox.deliverDue(T0);
    expect(o).toMatchObject({ kind: "dead" });
    expect(o!.kind === "dead" && o!.error).toContain("redirects are not followed");
    expect(receiver.requests.all).toHaveLength(1);
  });

  it("signs Slack and Discord payloads too", async () => {
    const slack = await setup([{ status: 200 }], { format: "slack" });
    slack.outbox.enqueue(sampleMessage(), ["hook"]);
    await slack.outbox.deliverDue(T0);
    const s = await slack.receiver.requests.next();
    expect(verifyStandardWebhook(SECRET, s.headers, s.body)).toBe(true);
    expect(JSON.parse(s.body)).toMatchObject({
      text: expect.stringMatching(/^\[FIRING\]/),
      blocks: expect.any(Array),
    });

    const discord = await setup([{ status: 200 }], { format: "discord", secret: false });
    discord.outbox.enqueue(sampleMessage(), ["hook"]);
    await discord.outbox.deliverDue(T0);
    const d = await discord.receiver.requests.next();
    expect(d.headers["webhook-signature"]).toBeUndefined();
    expect(JSON.parse(d.body)).toMatchObject({
      content: expect.any(String),
      embeds: [expect.any(Object)],
    });
  });

  it("retries a request nobody answers and reports it by the timeout", async () => {
    const receiver = await startReceiver([{ status: 200, hang: true }]);
    cleanups.push(() => receiver.close());
    const channel = createWebhookChannel(
      {
        name: "hook",
        type: "webhook",
        url: literal(receiver.url),
        secret: undefined,
        format: "standard",
      },
      { timeoutMs: 200 },
    );
    const result = await channel.send(sampleDelivery("hook", T0));
    expect(result).toEqual({ kind: "retry", error: "no answer within 200 ms" });
  });

  it("keeps a secret url out of the outbox file and the bodies", async () => {
    const redactor = new Redactor();
    const { receiver, outbox } = await setup([{ status: 200 }], { redactor });
    outbox.enqueue(sampleMessage({ journalTail: [`posting to ${receiver.url}`] }), ["hook"]);
    await outbox.deliverDue(T0);
    const req = await receiver.requests.next();
    expect(req.body).not.toContain(receiver.url);
    expect(req.body).toContain("posting to [REDACTED]");
    const file = readFileSync(outbox.path, "utf8");
    expect(file).not.toContain(receiver.url);
    expect(file).not.toContain(SECRET);
  });
  it("refuses a url that is not http(s) at start, without repeating it", () => {
    const make = (u: string) => () =>
      createWebhookChannel(
        {
          name: "hook",
          type: "webhook",
          url: { kind: "env", name: "HOOK_URL" },
          secret: undefined,
          format: "standard",
        },
        { env: { HOOK_URL: u } },
      );
    expect(make("ftp://user:hunter2@example.org/x")).toThrow(
      'channel "hook": url: found a ftp: URL; expected http or https',
    );
    expect(make("hunter2 is not a url")).toThrow(
      'channel "hook": url: not a valid URL; expected http(s)://host/path',
    );
  });

  it("retries while nothing listens, saying why", async () => {
    const receiver = await startReceiver();
    await receiver.close();
    const channel = createWebhookChannel({
      name: "hook",
      type: "webhook",
      url: literal(receiver.url),
      secret: undefined,
      format: "standard",
    });
    const result = await channel.send(sampleDelivery("hook", T0));
    expect(result).toEqual({
      kind: "retry",
      error: expect.stringMatching(/^connect ECONNREFUSED 127\.0\.0\.1:\d+$/),
    });
  });
});
