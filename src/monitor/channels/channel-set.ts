// The channels an outbox sends through, by name, each behind its own concurrency limit.
// Turns every way a send can go wrong (unknown channel, a throwing channel) into a result.
import { Semaphore } from "./concurrency.js";
import {
  type AlertChannel,
  type DeliveryResult,
  errorText,
  type OutboxDelivery,
} from "./delivery.js";

export class ChannelSet {
  private readonly channels = new Map<string, { channel: AlertChannel; limit: Semaphore }>();

  constructor(channels: readonly AlertChannel[], concurrency: number) {
    for (const channel of channels) {
      this.channels.set(channel.name, { channel, limit: new Semaphore(concurrency) });
    }
  }

  names(): string[] {
    return [...this.channels.keys()];
  }

  async send(delivery: OutboxDelivery): Promise<DeliveryResult> {
    const slot = this.channels.get(delivery.channel);
    if (slot === undefined) {
      const known = this.names().join(", ") || "none";
      return {
        kind: "permanent",
        error: `channel "${delivery.channel}" is not configured (configured: ${known})`,
      };
    }
    try {
      return await slot.limit.run(() => slot.channel.send(delivery));
    } catch (err) {
      // A bug in a channel must not lose the alert: treat it as transient.
      return { kind: "retry", error: `channel threw: ${errorText(err)}` };
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.channels.values()].map((s) => s.channel.close().catch(() => {})));
  }
}
