// Memory entries (learnings, preferences, meta, tombstones) in the public autoloop's exact byte
// style (docs/formats.md, "Memory"): the same spaced JSON and \uXXXX escapes as the journal.
import { encodeObject } from "../../journal/codec.js";
import {
  decodeTombstone,
  encodeTombstone,
  parseObjectLine,
  str,
  type Tombstone,
} from "../store/jsonl-store.js";

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
export type MemoryTombstone = Tombstone<"tombstone">;
export type MemoryEntry = LearningEntry | PreferenceEntry | MetaEntry;
export type MemoryFileEntry = MemoryEntry | MemoryTombstone;

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
      return encodeTombstone(e);
  }
}

/** One line of a memory file; undefined for anything that is not an entry. */
export function decodeMemoryEntry(line: string): MemoryFileEntry | undefined {
  const o = parseObjectLine(line);
  const id = str(o?.id);
  if (o === undefined || id === undefined) return undefined;
  const created = str(o.created) ?? "";
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
    case "tombstone":
      return decodeTombstone("tombstone", id, o);
    default:
      return undefined;
  }
}
