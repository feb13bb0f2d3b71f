// The embedded sink, used when no channel is configured: each alert becomes an .eml file
// under <state_dir>/mail/ (with its text part beside it as .txt) and one log line, so a fresh
// checkout shows alerts with no server.
import { join } from "node:path";
import nodemailer from "nodemailer";
import type { SinkChannelConfig } from "../../scheduler/config/channels.js";
import { writeFileAtomic } from "../../util/atomic-write.js";
import type { AlertChannel, AlertLogger } from "./delivery.js";
import { alertMail } from "./email-content.js";

export interface SinkChannelDeps {
  stateDir: string;
  logger: AlertLogger;
  now?: () => number;
}

const SINK_ADDRESSING = {
  from: "autoloop-cron <autoloop-cron@localhost>",
  to: ["operator@localhost"],
};

/** `20261121T020000Z`: sorts by time in a directory listing. */
function compactTimestamp(iso: string): string {
  return iso.replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}

export function createSinkChannel(config: SinkChannelConfig, deps: SinkChannelDeps): AlertChannel {
  const dir = config.dir ?? join(deps.stateDir, "mail");
  const transport = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: "unix",
  });
  const now = deps.now ?? Date.now;
  return {
    name: config.name,
    type: "sink",
    async send(delivery) {
      const mail = alertMail(delivery, SINK_ADDRESSING, { now: now() });
      const info = await transport.sendMail(mail);
      // Named by enqueue time and message id, so a retry overwrites instead of duplicating.
      const name = `${compactTimestamp(delivery.enqueuedAt)}-${delivery.message.kind}-${delivery.messageId}`;
      const path = join(dir, `${name}.eml`);
      // The mail as on-call reads it, beside the .eml (which is quoted-printable MIME).
      writeFileAtomic(join(dir, `${name}.txt`), `Subject: ${mail.subject}\n\n${mail.text}`);
      writeFileAtomic(path, info.message as Buffer);
      deps.logger.info(
        { alert: delivery.message.kind, fingerprint: delivery.message.fingerprint, file: path },
        `alert: ${mail.subject}`,
      );
      return { kind: "delivered", response: `wrote ${path}` };
    },
    async close() {
      transport.close();
    },
  };
}
