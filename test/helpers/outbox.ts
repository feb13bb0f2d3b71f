// What the monitor enqueued for the channels, read back from a state dir's outbox file.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AlertMessage } from "../../src/monitor/alerts/message.js";

/** Every message enqueued in `<stateDir>/outbox.jsonl`, oldest first. */
export function enqueuedMessages(stateDir: string): AlertMessage[] {
  return readFileSync(join(stateDir, "outbox.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((r) => r.type === "enqueued")
    .map((r) => r.message as AlertMessage);
}
