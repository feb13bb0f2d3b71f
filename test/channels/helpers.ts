// Real parts for the alerts tests: temp dirs, an SMTP server and an HTTP receiver on
// 127.0.0.1, the Standard Webhooks reference verifier, and a sample alert.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { AlertMessage } from "../../src/monitor/alerts/message.js";
import type { AlertLogger, OutboxDelivery } from "../../src/monitor/channels/delivery.js";
import { createWebhookChannel } from "../../src/monitor/channels/webhook.js";
import type { WebhookChannelConfig } from "../../src/scheduler/config/channels.js";

/** Items arriving over time; next() waits for the next one instead of sleeping. */
export class Arrivals<T> {
  readonly all: T[] = [];
  private readonly waiting: Array<(item: T) => void> = [];
  private read = 0;

  push(item: T): void {
    this.all.push(item);
    const resolve = this.waiting.shift();
    if (resolve) {
      this.read++;
      resolve(item);
    }
  }

  next(): Promise<T> {
    if (this.read < this.all.length) return Promise.resolve(this.all[this.read++]!);
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}

const dirs: string[] = [];

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "autoloop-alerts-"));
  dirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A first attempt at delivering sampleMessage() on `channel`, enqueued at `enqueuedAt`. */
export function sampleDelivery(channel: string, enqueuedAt: number): OutboxDelivery {
  return {
    entryId: "e",
    messageId: "m",
    channel,
    message: sampleMessage(),
    enqueuedAt: new Date(enqueuedAt).toISOString(),
    attempt: 1,
  };
}

export function sampleMessage(overrides: Partial<AlertMessage> = {}): AlertMessage {
  return {
    fingerprint: "gate_stuck:nightly-fix:run-20261121-0200-ab12",
    kind: "gate_stuck",
    status: "firing",
    title: "Completion gate refused 3 times",
    summary: "The run keeps asking to finish while 2 tasks are open.",
    schedule: "nightly-fix",
    preset: "autofix",
    runId: "run-20261121-0200-ab12",
    objective: "Fix the flaky login test",
    gate: {
      topic: "task.gate",
      openTasks: [
        { id: "t1", text: "make the test pass" },
        { id: "t2", text: "add a regression test" },
      ],
      refusals: 3,
      since: "2026-11-21T01:10:00.000Z",
    },
    timezone: "Europe/Berlin",
    occurredAt: "2026-11-21T01:20:00.000Z",
    journalPath: "/srv/app/.autoloop/journal.jsonl",
    journalTail: ['{"topic": "task.gate", "fields": {"open": "2"}}'],
    commands: {
      inspect: "autoloop inspect run-20261121-0200-ab12",
      ack: "autoloop-cron ack gate_stuck:nightly-fix",
      stop: "autoloop-cron stop run-20261121-0200-ab12",
    },
    ...overrides,
  };
}

export interface CollectingLogger extends AlertLogger {
  lines: Array<{ level: string; obj: object; msg?: string | undefined }>;
}

export function collectingLogger(): CollectingLogger {
  const lines: CollectingLogger["lines"] = [];
  return {
    lines,
    info: (obj, msg) => lines.push({ level: "info", obj, msg }),
    warn: (obj, msg) => lines.push({ level: "warn", obj, msg }),
    error: (obj, msg) => lines.push({ level: "error", obj, msg }),
  };
}

export interface TestSmtpServer {
  port: number;
  mails: Arrivals<{ raw: string; from: string; to: string[] }>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 (STARTTLS off: its self-signed cert is not trusted). */
export async function startSmtpServer(
  options: Partial<SMTPServerOptions> = {},
  port = 0,
): Promise<TestSmtpServer> {
  const mails: TestSmtpServer["mails"] = new Arrivals();
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    // Pooled clients keep idle connections; do not wait long for them on close.
    closeTimeout: 100,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        mails.push({
          raw: Buffer.concat(chunks).toString("utf8"),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
        });
        callback();
      });
    },
    ...options,
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = (server as unknown as { server: Server }).server.address() as AddressInfo;
  return {
    port: address.port,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface ReceivedRequest {
  method: string;
  /** The path and query asked for. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (the test closes the server). */
  hang?: boolean;
}

export interface TestReceiver {
  url: string;
  requests: Arrivals<ReceivedRequest>;
  close(): Promise<void>;
}

/** An HTTP receiver on 127.0.0.1 answering each request with the next reply (last repeats). */
export async function startReceiver(replies: Reply[] = [{ status: 200 }]): Promise<TestReceiver> {
  const requests: TestReceiver["requests"] = new Arrivals();
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const reply = replies[Math.min(n++, replies.length - 1)]!;
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      if (reply.hang) return;
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body ?? "ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Verification by the Standard Webhooks reference library (`standardwebhooks`), not by our
 * own algorithm: a signing mistake of ours cannot hide behind a matching mistake here.
 */
export function verifyStandardWebhook(secret: string, headers: IncomingHttpHeaders, body: string) {
  const header = (name: string) => String(headers[name] ?? "");
  try {
    new Webhook(secret).verify(body, {
      "webhook-id": header("webhook-id"),
      "webhook-timestamp": header("webhook-timestamp"),
      "webhook-signature": header("webhook-signature"),
    });
    return true;
  } catch (err) {
    if (err instanceof WebhookVerificationError) return false;
    throw err;
  }
}

/** A webhook channel "chat" of `format` posting to a fresh receiver, closed by `cleanups`. */
export async function chatChannel(
  format: WebhookChannelConfig["format"],
  extra: Partial<WebhookChannelConfig>,
  cleanups: Array<() => Promise<unknown>>,
) {
  const receiver = await startReceiver([{ status: 200 }]);
  cleanups.push(() => receiver.close());
  const channel = createWebhookChannel({
    name: "chat",
    type: "webhook",
    url: { kind: "literal", value: receiver.url },
    secret: undefined,
    format,
    ...extra,
  });
  return { receiver, channel };
}
