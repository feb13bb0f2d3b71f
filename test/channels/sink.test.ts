import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { messageIdHeader, threadRootHeader } from "../../src/monitor/alerts/message.js";
import { createChannels } from "../../src/monitor/channels/create.js";
import { Outbox } from "../../src/monitor/outbox/outbox.js";
import { effectiveChannels } from "../../src/scheduler/config/channels.js";
import { collectingLogger, removeTempDirs, sampleMessage, tempDir } from "./helpers.js";

const T0 = Date.parse("2026-11-21T01:25:00.000Z");
let outbox: Outbox | undefined;
afterEach(async () => {
  await outbox?.close();
  outbox = undefined;
  removeTempDirs();
});

describe("embedded sink (no channel configured)", () => {
  it("writes one .eml (and its text as .txt) per alert under <state_dir>/mail and logs it", async () => {
    const stateDir = tempDir();
    const logger = collectingLogger();
    const configs = effectiveChannels([]);
    expect(configs).toEqual([{ name: "sink", type: "sink" }]);
    const { channels, problems } = createChannels(configs, { stateDir, logger, now: () => T0 });
    expect(problems).toEqual([]);
    outbox = Outbox.open({ path: join(stateDir, "outbox.jsonl"), channels, now: () => T0 });
    const [entry] = outbox.enqueue(sampleMessage(), ["sink"]);
    const [outcome] = await outbox.deliverDue(T0);

    const base = `20261121T012500Z-gate_stuck-${entry!.messageId}`;
    expect(readdirSync(join(stateDir, "mail")).sort()).toEqual([`${base}.eml`, `${base}.txt`]);
    const files = [`${base}.eml`];
    // Beside the MIME file, the mail as on-call reads it: plain text, not quoted-printable.
    const text = readFileSync(join(stateDir, "mail", `${base}.txt`), "utf8");
    expect(text).toMatch(/^Subject: \[FIRING\] gate stuck: nightly-fix run-20261121-0200-ab12\n\n/);
    expect(text).toContain("Fix the flaky login test");
    expect(text).toContain("autoloop-cron stop run-20261121-0200-ab12");
    expect(text).not.toMatch(/=\n|=3D/);
    expect(outcome).toMatchObject({
      kind: "delivered",
      response: `wrote ${join(stateDir, "mail", files[0]!)}`,
    });
    const eml = readFileSync(join(stateDir, "mail", files[0]!), "utf8");
    expect(eml).toContain("Subject: [FIRING] gate stuck: nightly-fix run-20261121-0200-ab12");
    expect(eml).toContain(`Message-ID: ${messageIdHeader(entry!.messageId)}`);
    expect(eml).toContain(`In-Reply-To: ${threadRootHeader(sampleMessage().fingerprint)}`);
    expect(eml).toMatch(/Content-Type: text\/html/);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({
        level: "info",
        msg: "alert: [FIRING] gate stuck: nightly-fix run-20261121-0200-ab12",
      }),
    );
  });
});
