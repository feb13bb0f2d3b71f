import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { messageIdHeader, threadRootHeader } from "../../src/monitor/alerts/message.js";
import { createChannel } from "../../src/monitor/channels/create.js";
import type { AlertChannel } from "../../src/monitor/channels/delivery.js";
import { createEmailChannel } from "../../src/monitor/channels/email.js";
import { Outbox } from "../../src/monitor/outbox/outbox.js";
import type { DeadLetter } from "../../src/monitor/outbox/record.js";
import type { EmailChannelConfig } from "../../src/scheduler/config/channels.js";
import { Redactor } from "../../src/util/secrets.js";
import {
  collectingLogger,
  removeTempDirs,
  sampleDelivery,
  sampleMessage,
  startSmtpServer,
  tempDir,
} from "./helpers.js";

const T0 = Date.parse("2026-11-21T01:25:00.000Z");
const config: EmailChannelConfig = {
  name: "mail",
  type: "email",
  smtpUrl: { kind: "env", name: "TEST_SMTP_URL" },
  from: "autoloop-cron <cron@example.com>",
  to: ["ops@example.com"],
};

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  removeTempDirs();
});

async function smtp(options: Parameters<typeof startSmtpServer>[0] = {}, port = 0) {
  const server = await startSmtpServer(options, port);
  cleanups.push(() => server.close());
  return server;
}

function channelFor(url: string, extra: Parameters<typeof createEmailChannel>[1] = {}) {
  const channel = createEmailChannel(config, {
    env: { TEST_SMTP_URL: url },
    now: () => T0,
    ...extra,
  });
  cleanups.push(() => channel.close());
  return channel;
}

function outboxWith(channel: AlertChannel, onDead?: (d: DeadLetter) => void) {
  let now = T0;
  const outbox = Outbox.open({
    path: join(tempDir(), "outbox.jsonl"),
    channels: [channel],
    now: () => now,
    random: () => 0.5,
    ...(onDead && { onDead }),
  });
  cleanups.push(() => outbox.close());
  return { outbox, setNow: (t: number) => (now = t) };
}

function header(raw: string, name: string): string | undefined {
  const unfolded = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, " ");
  return new RegExp(`^${name}: (.*)$`, "im").exec(unfolded)?.[1]?.trim();
}

describe("email channel (real SMTP server on 127.0.0.1)", () => {
  it("delivers with subject, threading headers, text and HTML parts, using SMTP auth", async () => {
    const server = await smtp({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth: (auth, _session, cb) =>
        auth.username === "alerts" && auth.password === "p@ss word"
          ? cb(null, { user: "alerts" })
          : cb(new Error("Invalid username or password")),
    });
    const channel = channelFor(`smtp://alerts:p%40ss%20word@127.0.0.1:${server.port}`);
    const { outbox } = outboxWith(channel);
    const [entry] = outbox.enqueue(sampleMessage(), ["mail"]);
    const [outcome] = await outbox.deliverDue(T0);
    expect(outcome).toMatchObject({ kind: "delivered" });
    expect(outcome!.kind === "delivered" && outcome!.response).toMatch(/^250 /);

    const mail = await server.mails.next();
    expect(mail.to).toEqual(["ops@example.com"]);
    expect(header(mail.raw, "Subject")).toBe(
      "[FIRING] gate stuck: nightly-fix run-20261121-0200-ab12",
    );
    expect(header(mail.raw, "Message-ID")).toBe(messageIdHeader(entry!.messageId));
    const root = threadRootHeader(sampleMessage().fingerprint);
    expect(header(mail.raw, "In-Reply-To")).toBe(root);
    expect(header(mail.raw, "References")).toBe(root);
    expect(header(mail.raw, "Auto-Submitted")).toBe("auto-generated");
    expect(mail.raw).toMatch(/Content-Type: text\/plain/i);
    expect(mail.raw).toMatch(/Content-Type: text\/html/i);
    expect(mail.raw).toContain("add a regression test");
  });

  it("threads every mail of one incident under the same root", async () => {
    const server = await smtp();
    const { outbox } = outboxWith(channelFor(`smtp://127.0.0.1:${server.port}`));
    outbox.enqueue(sampleMessage(), ["mail"]);
    outbox.enqueue(sampleMessage({ status: "resolved" }), ["mail"]);
    await outbox.deliverDue(T0);
    const [a, b] = [await server.mails.next(), await server.mails.next()];
    expect(header(a.raw, "In-Reply-To")).toBe(header(b.raw, "In-Reply-To"));
    expect(header(a.raw, "Message-ID")).not.toBe(header(b.raw, "Message-ID"));
  });

  it("retries while the server is down and delivers each alert once it is up", async () => {
    const probe = await startSmtpServer();
    const port = probe.port;
    await probe.close(); // A free port with nothing listening.
    const { outbox, setNow } = outboxWith(channelFor(`smtp://127.0.0.1:${port}`));
    const entries = [1, 2, 3].flatMap((i) =>
      outbox.enqueue(sampleMessage({ fingerprint: `f${i}` }), ["mail"]),
    );
    const failed = await outbox.deliverDue(T0);
    expect(failed.map((o) => o.kind)).toEqual(["retrying", "retrying", "retrying"]);
    expect(failed[0]!.kind === "retrying" && failed[0]!.error).toMatch(
      /ECONNREFUSED|ECONNECTION|ESOCKET/,
    );
    expect(outbox.status(T0).backlog).toBe(3);

    const server = await smtp({}, port);
    setNow(T0 + 10_000);
    const later = await outbox.deliverDue(T0 + 10_000);
    expect(later.map((o) => o.kind)).toEqual(["delivered", "delivered", "delivered"]);
    const ids = await Promise.all(
      entries.map(async () => header((await server.mails.next()).raw, "Message-ID")),
    );
    expect(ids.sort()).toEqual(entries.map((e) => messageIdHeader(e.messageId)).sort());
    expect(server.mails.all).toHaveLength(3);
    expect(outbox.status(T0 + 10_000).backlog).toBe(0);
  });

  it("makes a rejected login a dead letter without leaking the password", async () => {
    const server = await smtp({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth: (_auth, _session, cb) => cb(new Error("Invalid username or password")),
    });
    const dead: DeadLetter[] = [];
    const redactor = new Redactor();
    const url = `smtp://alerts:wrong-pass-123@127.0.0.1:${server.port}`;
    const { outbox } = outboxWith(channelFor(url, { redactor }), (d) => dead.push(d));
    outbox.enqueue(sampleMessage({ detail: `tried ${url}` }), ["mail"]);
    const [outcome] = await outbox.deliverDue(T0);
    expect(outcome).toMatchObject({ kind: "dead" });
    expect(outcome!.kind === "dead" && outcome!.error).toMatch(/^EAUTH 535/);
    expect(dead).toHaveLength(1);
    expect(readFileSync(outbox.path, "utf8")).not.toContain("wrong-pass-123");
  });

  it("retries a 451 and gives up on a 550 recipient rejection", async () => {
    let code = 451;
    const server = await smtp({
      onRcptTo: (_addr, _session, cb) =>
        cb(
          Object.assign(new Error(code === 451 ? "try later" : "no such user"), {
            responseCode: code,
          }),
        ),
    });
    const { outbox, setNow } = outboxWith(channelFor(`smtp://127.0.0.1:${server.port}`));
    outbox.enqueue(sampleMessage(), ["mail"]);
    expect((await outbox.deliverDue(T0))[0]).toMatchObject({ kind: "retrying" });
    code = 550;
    setNow(T0 + 10_000);
    const [last] = await outbox.deliverDue(T0 + 10_000);
    expect(last).toMatchObject({ kind: "dead" });
    expect(last!.kind === "dead" && last!.error).toContain("550");
  });

  it("gives up on a server that never answers, via the guard timer", async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((s) => sockets.add(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", () => r()));
    cleanups.push(async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    });
    const { port } = silent.address() as AddressInfo;
    const channel = channelFor(`smtp://127.0.0.1:${port}`, {
      guardMs: 300,
      timeouts: { greetingTimeout: 60_000, connectionTimeout: 60_000, socketTimeout: 60_000 },
    });
    const result = await channel.send(sampleDelivery("mail", T0));
    expect(result).toEqual({
      kind: "retry",
      error: "no answer from the SMTP server within 300 ms",
    });
  });

  it("turns a missing secret into a channel whose alerts are dead letters naming the variable", async () => {
    const logger = collectingLogger();
    const channel = createChannel(config, { stateDir: tempDir(), logger, env: {} });
    const { outbox } = outboxWith(channel);
    outbox.enqueue(sampleMessage(), ["mail"]);
    const [o] = await outbox.deliverDue(T0);
    expect(o).toMatchObject({
      kind: "dead",
      error:
        'channel "mail": smtp_url: environment variable TEST_SMTP_URL is not set or is empty; export it before starting autoloop-cron',
    });
    expect(logger.lines[0]).toMatchObject({ level: "error", msg: "alert channel unusable" });
  });
});
