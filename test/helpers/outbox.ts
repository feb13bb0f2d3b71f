// What the monitor enqueued for the channels, read back from a state dir's outbox file.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AlertMessage } from "../../src/monitor/alerts/message.js";

/** Every message enqueued in `<stateDir>/outbox.jsonl`, oldest first (none: no file yet). */
export function enqueuedMessages(stateDir: string): AlertMessage[] {
  const path = join(stateDir, "outbox.jsonl");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((r) => r.type === "enqueued")
    .map((r) => r.message as AlertMessage);
}
