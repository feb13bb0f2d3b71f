// The lines of outbox.jsonl and the pure replay that rebuilds the outbox from them; also
// the minimal set of lines a compacted file keeps.
import * as z from "zod";
import { type AlertMessage, alertMessageSchema } from "../alerts/message.js";

const enqueued = z.object({
  type: z.literal("enqueued"),
  id: z.string(),
  messageId: z.string(),
  channel: z.string(),
  at: z.string(),
  message: alertMessageSchema,
});
const attempt = z.object({
  type: z.literal("attempt"),
  id: z.string(),
  at: z.string(),
  attempt: z.number().int().positive(),
  error: z.string(),
  nextAt: z.string(),
});
const delivered = z.object({
  type: z.literal("delivered"),
  id: z.string(),
  at: z.string(),
  response: z.string(),
});
const dead = z.object({
  type: z.literal("dead"),
  id: z.string(),
  at: z.string(),
  error: z.string(),
});

const recordSchema = z.discriminatedUnion("type", [enqueued, attempt, delivered, dead]);
export type OutboxRecord = z.infer<typeof recordSchema>;

export function encodeOutboxRecord(record: OutboxRecord): string {
  return JSON.stringify(record);
}

/** Parses one line; undefined for garbage or a torn line (the reader skips and counts it). */
export function parseOutboxRecord(line: string): OutboxRecord | undefined {
  try {
    const parsed = recordSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** An entry not yet delivered and not given up on. */
export interface PendingEntry {
  id: string;
  messageId: string;
  channel: string;
  message: AlertMessage;
  enqueuedAt: number;
  /** Failed attempts so far. */
  failures: number;
  /** Epoch ms of the next attempt. */
  nextAt: number;
  lastError?: string;
}

/** An entry that failed permanently. */
export interface DeadLetter {
  id: string;
  messageId: string;
  channel: string;
  message: AlertMessage;
  enqueuedAt: number;
  failures: number;
  error: string;
  /** Epoch ms it was given up on. */
  at: number;
}

export interface OutboxState {
  pending: Map<string, PendingEntry>;
  dead: DeadLetter[];
  delivered: number;
}

export function emptyOutboxState(): OutboxState {
  return { pending: new Map(), dead: [], delivered: 0 };
}

/** When an entry is next due: at once when its file's time does not parse (never "never"). */
const dueAt = (ms: number): number => (Number.isFinite(ms) ? ms : 0);

/** Applies one record; records about unknown or finished entries are ignored. */
export function applyRecord(state: OutboxState, r: OutboxRecord): void {
  if (r.type === "enqueued") {
    if (state.pending.has(r.id)) return;
    const at = Date.parse(r.at);
    state.pending.set(r.id, {
      id: r.id,
      messageId: r.messageId,
      channel: r.channel,
      message: r.message,
      enqueuedAt: at,
      failures: 0,
      nextAt: dueAt(at),
    });
    return;
  }
  const entry = state.pending.get(r.id);
  if (entry === undefined) return;
  if (r.type === "attempt") {
    entry.failures = Math.max(entry.failures, r.attempt);
    entry.nextAt = dueAt(Date.parse(r.nextAt));
    entry.lastError = r.error;
  } else if (r.type === "delivered") {
    state.pending.delete(r.id);
    state.delivered++;
  } else {
    state.pending.delete(r.id);
    const { lastError: _last, nextAt: _next, ...rest } = entry;
    state.dead.push({ ...rest, error: r.error, at: Date.parse(r.at) });
  }
}

export function replayOutbox(records: Iterable<OutboxRecord>): OutboxState {
  const state = emptyOutboxState();
  for (const r of records) applyRecord(state, r);
  return state;
}

export function enqueuedRecord(e: PendingEntry | DeadLetter): OutboxRecord {
  const { id, messageId, channel, message } = e;
  const at = new Date(e.enqueuedAt).toISOString();
  return { type: "enqueued", id, messageId, channel, at, message };
}

/** The lines that rebuild `state` exactly, minus delivered entries and old dead letters. */
export function compactedRecords(state: OutboxState, keepDead: DeadLetter[]): OutboxRecord[] {
  const out: OutboxRecord[] = [];
  for (const d of keepDead) {
    out.push(enqueuedRecord(d), {
      type: "dead",
      id: d.id,
      at: new Date(d.at).toISOString(),
      error: d.error,
    });
  }
  for (const p of state.pending.values()) {
    out.push(enqueuedRecord(p));
    if (p.failures > 0) {
      out.push({
        type: "attempt",
        id: p.id,
        at: new Date(p.nextAt).toISOString(),
        attempt: p.failures,
        error: p.lastError ?? "",
        nextAt: new Date(p.nextAt).toISOString(),
      });
    }
  }
  return out;
}
