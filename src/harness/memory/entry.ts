// Memory entries (learnings, preferences, meta, tombstones) in the public autoloop's exact byte
// style (docs/formats.md, "Memory"): the same spaced JSON and \uXXXX escapes as the journal.
import { encodeObject } from "../../journal/codec.js";

export interface LearningEntry {
  type: "learning";
  id: string;
  text: string;
  source: string;
  created: string;
}
export interface PreferenceEntry {
  type: "preference";
  id: string;
  category: string;
  text: string;
  created: string;
}
export interface MetaEntry {
  type: "meta";
  id: string;
  key: string;
  value: string;
  created: string;
}
export interface MemoryTombstone {
  type: "tombstone";
  id: string;
  targetId: string;
  reason: string;
  created: string;
}
export type MemoryEntry = LearningEntry | PreferenceEntry | MetaEntry;
export type MemoryFileEntry = MemoryEntry | MemoryTombstone;

/** Memory timestamps carry no milliseconds: `2026-03-27T01:00:19Z`. */
export function memoryTimestamp(now: Date = new Date()): string {
  return `${now.toISOString().slice(0, 19)}Z`;
}

/** One line, keys in the reference's order. */
export function encodeMemoryEntry(e: MemoryFileEntry): string {
  switch (e.type) {
    case "learning":
      return encodeObject({
        id: e.id,
        type: e.type,
        text: e.text,
        source: e.source,
        created: e.created,
      });
    case "preference":
      return encodeObject({
        id: e.id,
        type: e.type,
        category: e.category,
        text: e.text,
        created: e.created,
      });
    case "meta":
      return encodeObject({
        id: e.id,
        type: e.type,
        key: e.key,
        value: e.value,
        created: e.created,
      });
    case "tombstone":
      return encodeObject({
        id: e.id,
        type: e.type,
        target_id: e.targetId,
        reason: e.reason,
        created: e.created,
      });
  }
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** One line of a memory file; undefined for anything that is not an entry. */
export function decodeMemoryEntry(line: string): MemoryFileEntry | undefined {
  let o: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
    o = parsed as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const id = str(o.id);
  const created = str(o.created) ?? "";
  if (id === undefined) return undefined;
  switch (o.type) {
    case "learning":
      return {
        type: "learning",
        id,
        text: str(o.text) ?? "",
        source: str(o.source) ?? "manual",
        created,
      };
    case "preference":
      return {
        type: "preference",
        id,
        category: str(o.category) ?? "",
        text: str(o.text) ?? "",
        created,
      };
    case "meta": {
      const key = str(o.key);
      return key === undefined
        ? undefined
        : { type: "meta", id, key, value: str(o.value) ?? "", created };
    }
    case "tombstone": {
      const targetId = str(o.target_id);
      if (targetId === undefined) return undefined;
      return { type: "tombstone", id, targetId, reason: str(o.reason) ?? "", created };
    }
    default:
      return undefined;
  }
}
