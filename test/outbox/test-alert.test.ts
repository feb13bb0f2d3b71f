import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createChannels } from "../../src/monitor/channels/create.js";
import { Outbox } from "../../src/monitor/outbox/outbox.js";
import { sendTestAlert } from "../../src/monitor/outbox/test-alert.js";
import { UserError } from "../../src/util/errors.js";
import {
  collectingLogger,
  removeTempDirs,
  startReceiver,
  startSmtpServer,
  tempDir,
} from "../channels/helpers.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  removeTempDirs();
});

describe("alert test", () => {
  it("goes through the outbox and answers with each receiver's reply", async () => {
    const smtp = await startSmtpServer();
    const hook = await startReceiver([{ status: 503, body: "maintenance" }]);
    cleanups.push(
      () => smtp.close(),
      () => hook.close(),
    );
    const stateDir = tempDir();
    const { channels } = createChannels(
      [
        {
          name: "mail",
          type: "email",
          smtpUrl: { kind: "env", name: "SMTP" },
          from: "a@example.com",
          to: ["b@example.com"],
        },
        {
          name: "hook",
          type: "webhook",
          url: { kind: "env", name: "HOOK" },
          secret: undefined,
          format: "standard",
        },
      ],
      {
        stateDir,
        logger: collectingLogger(),
        env: { SMTP: `smtp://127.0.0.1:${smtp.port}`, HOOK: hook.url },
      },
    );
    const outbox = Outbox.open({ path: join(stateDir, "outbox.jsonl"), channels });
    cleanups.push(() => outbox.close());

    const results = await sendTestAlert(outbox);
    expect(results.map((r) => [r.channel, r.kind])).toEqual([
      ["mail", "delivered"],
      ["hook", "retrying"],
    ]);
    expect(results[0]!.kind === "delivered" && results[0]!.response).toMatch(/^250 /);
    expect(results[1]!.kind === "retrying" && results[1]!.error).toBe("HTTP 503: maintenance");
    expect((await smtp.mails.next()).raw).toContain("Subject: [TEST] test alert");

    const one = await sendTestAlert(outbox, "mail");
    expect(one.map((r) => r.channel)).toEqual(["mail"]);
    await expect(sendTestAlert(outbox, "pager")).rejects.toThrow(
      new UserError('no channel named "pager"; configured channels: mail, hook'),
    );
  });
});
