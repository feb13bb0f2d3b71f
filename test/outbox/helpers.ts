// Shared parts of the outbox tests: an in-process scripted channel and a file reader.
import { readFileSync } from "node:fs";
import type {
  AlertChannel,
  DeliveryResult,
  OutboxDelivery,
} from "../../src/monitor/channels/delivery.js";
import { Outbox, type OutboxOptions } from "../../src/monitor/outbox/outbox.js";

export const T0 = Date.parse("2026-11-21T02:00:00.000Z");

/** An in-process channel answering from a script; the network channels have their own tests. */
export function scripted(
  name: string,
  answer: (d: OutboxDelivery) => DeliveryResult | Promise<DeliveryResult>,
) {
  const seen: OutboxDelivery[] = [];
  const channel: AlertChannel = {
    name,
    type: "scripted",
    send: async (d) => {
      seen.push(d);
      return answer(d);
    },
    close: async () => {},
  };
  return { channel, seen };
}

export const ok = (): DeliveryResult => ({ kind: "delivered", response: "250 ok" });

export function lines(path: string): Array<Record<string, unknown>> {
  const text = readFileSync(path, "utf8").trim();
  return text === "" ? [] : text.split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
}

const opened: Outbox[] = [];

/** Opens an outbox on a settable clock (starting at T0) with random() = 0.5. */
export function openOutbox(
  options: Partial<OutboxOptions> & Pick<OutboxOptions, "path" | "channels">,
) {
  let now = T0;
  const outbox = Outbox.open({ now: () => now, random: () => 0.5, ...options });
  opened.push(outbox);
  return { outbox, setNow: (t: number) => (now = t) };
}

export async function closeOutboxes(): Promise<void> {
  for (const o of opened.splice(0)) await o.close();
}
