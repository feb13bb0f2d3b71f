import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createWebhookChannel } from "../../src/monitor/channels/webhook.js";
import { Outbox } from "../../src/monitor/outbox/outbox.js";
import { removeTempDirs, sampleMessage, startReceiver, tempDir } from "../channels/helpers.js";
import { transpileClosure } from "../helpers/transpile.js";

// A child that enqueues one alert for a webhook and starts delivering it.
const CHILD = `
import { Outbox } from "./src/monitor/outbox/outbox.js";
import { createWebhookChannel } from "./src/monitor/channels/webhook.js";
const [path, url, message] = process.argv.slice(2);
const channel = createWebhookChannel(
  { name: "hook", type: "webhook", url: { kind: "literal", value: url }, format: "standard" },
  {},
);
const outbox = Outbox.open({ path, channels: [channel] });
const [entry] = outbox.enqueue(JSON.parse(message), ["hook"]);
process.stdout.write(JSON.stringify(entry) + "\\n");
await outbox.deliverDue();
`;

let buildDir: string;
beforeAll(() => {
  buildDir = tempDir();
  transpileClosure(["src/monitor/outbox/outbox.ts", "src/monitor/channels/webhook.ts"], buildDir);
  writeFileSync(join(buildDir, "child.mjs"), CHILD);
});

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(removeTempDirs);

describe("outbox across a kill -9", () => {
  it("resends an alert whose sender died mid-delivery, with the same message id", async () => {
    const receiver = await startReceiver([{ status: 200, hang: true }, { status: 200 }]);
    cleanups.push(() => receiver.close());
    const path = join(tempDir(), "outbox.jsonl");
    const child = spawn(
      process.execPath,
      [join(buildDir, "child.mjs"), path, receiver.url, JSON.stringify(sampleMessage())],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const [line] = (await once(child.stdout!, "data")) as [Buffer];
    const entry = JSON.parse(line.toString()) as { messageId: string };

    const first = await receiver.requests.next(); // The child is now waiting for an answer.
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(
      readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).type),
    ).toEqual(["enqueued"]);

    const outbox = Outbox.open({
      path,
      channels: [
        createWebhookChannel({
          name: "hook",
          type: "webhook",
          url: { kind: "literal", value: receiver.url },
          secret: undefined,
          format: "standard",
        }),
      ],
    });
    cleanups.push(() => outbox.close());
    expect(outbox.status().backlog).toBe(1);
    const [outcome] = await outbox.deliverDue();
    expect(outcome).toMatchObject({ kind: "delivered", messageId: entry.messageId });
    const second = await receiver.requests.next();
    expect(first.headers["webhook-id"]).toBe(entry.messageId);
    expect(second.headers["webhook-id"]).toBe(entry.messageId);
    expect(outbox.status().backlog).toBe(0);
  });
});
