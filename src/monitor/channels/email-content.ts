// The mail for one outbox delivery, as nodemailer options: subject, text and HTML parts, and
// the headers that thread every mail of one incident together and dedupe retries.
import type { SendMailOptions } from "nodemailer";
import { digestHtml, digestSubject, digestText } from "../alerts/digest-render.js";
import { messageIdHeader, threadRootHeader } from "../alerts/message.js";
import { renderSubject, renderText } from "../alerts/render.js";
import { renderHtml } from "../alerts/render-html.js";
import type { OutboxDelivery } from "./delivery.js";

export interface MailAddressing {
  from: string;
  to: string[];
}

export function alertMail(
  delivery: OutboxDelivery,
  addressing: MailAddressing,
  ctx: { now: number },
): SendMailOptions {
  const { message } = delivery;
  const root = threadRootHeader(message.fingerprint);
  return {
    from: addressing.from,
    to: addressing.to,
    ...(message.digest === undefined
      ? {
          subject: renderSubject(message),
          text: renderText(message, ctx),
          html: renderHtml(message, ctx),
        }
      : {
          subject: digestSubject(message.digest),
          text: digestText(message.digest),
          html: digestHtml(message.digest),
        }),
    // The same id on every retry: a mail that went through before a crash is a duplicate
    // the receiving side can recognise.
    messageId: messageIdHeader(delivery.messageId),
    inReplyTo: root,
    references: [root],
    date: new Date(ctx.now),
    headers: {
      // RFC 3834: tells vacation responders and ticket systems not to answer.
      "Auto-Submitted": "auto-generated",
      "X-Autoloop-Kind": message.kind,
      "X-Autoloop-Fingerprint": message.fingerprint,
    },
  };
}
