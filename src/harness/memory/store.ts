// One append-only memory file: add, remove (a tombstone), read. Ids are assigned under the
// same cross-process lock as tasks: `mem-N`, `meta-N`, `ts-N`, N the next line number.
import { UserError } from "../../util/errors.js";
import { entryTimestamp, JsonlStore } from "../store/jsonl-store.js";
import {
  decodeMemoryEntry,
  encodeMemoryEntry,
  type MemoryEntry,
  type MemoryFileEntry,
} from "./entry.js";
import { type MemoryView, materializeMemory } from "./materialize.js";

type NewEntry =
  | { type: "learning"; text: string; source?: string }
  | { type: "preference"; category: string; text: string }
  | { type: "meta"; key: string; value: string };

const PREFIX = { learning: "mem", preference: "mem", meta: "meta", tombstone: "ts" } as const;

/** 64 MiB: loop memory is a few KiB of notes; a larger file is not the harness's. */
const MAX_MEMORY_FILE_BYTES = 64 << 20;

export class MemoryStore {
  private readonly file: JsonlStore<MemoryFileEntry>;

  constructor(
    readonly path: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    const codec = { encode: encodeMemoryEntry, decode: decodeMemoryEntry };
    this.file = new JsonlStore(path, codec, MAX_MEMORY_FILE_BYTES);
  }

  entries(): MemoryFileEntry[] {
    return this.file.entries();
  }

  view(): MemoryView {
    return materializeMemory(this.entries());
  }

  /** The live entry with this id, if any. */
  find(id: string): MemoryEntry | undefined {
    const v = this.view();
    return [...v.preferences, ...v.learnings, ...v.meta].find((e) => e.id === id);
  }

  add(input: NewEntry): MemoryEntry {
    const text = input.type === "meta" ? input.value : input.text;
    if (text.trim() === "") throw new UserError(`a memory ${input.type} needs a text`);
    return this.file.change((entries) => {
      const id = nextId(entries, PREFIX[input.type]);
      const created = entryTimestamp(this.now());
      const entry: MemoryEntry =
        input.type === "learning"
          ? {
              type: "learning",
              id,
              text: input.text.trim(),
              source: input.source ?? "manual",
              created,
            }
          : input.type === "preference"
            ? { type: "preference", id, category: input.category, text: input.text.trim(), created }
            : { type: "meta", id, key: input.key, value: input.value, created };
      return { entry, result: entry };
    });
  }

  /** Tombstones `id`; undefined when no live entry has it (nothing is written then). */
  remove(id: string, reason = "manual"): MemoryEntry | undefined {
    return this.file.change((entries) => {
      const target = [...Object.values(materializeMemory(entries)).flat()].find(
        (e: MemoryEntry) => e.id === id,
      ) as MemoryEntry | undefined;
      if (target === undefined) return { result: undefined };
      const entry: MemoryFileEntry = {
        type: "tombstone",
        id: nextId(entries, "ts"),
        targetId: id,
        reason: reason.trim() === "" ? "manual" : reason.trim(),
        created: entryTimestamp(this.now()),
      };
      return { entry, result: target };
    });
  }

  /**
   * Rewrites the file with its live entries only (ids and times kept, file order kept):
   * tombstones, what they removed and replaced meta values go. Ids of dropped entries may be
   * given again later; live ones never collide (see nextId).
   */
  compact(): { kept: number; dropped: number } {
    return this.file.locked(() => {
      const { items: entries, skipped } = this.file.read();
      // Nothing it cannot read is thrown away: such lines are for a human to look at first.
      if (skipped > 0)
        throw new UserError(
          `${this.path}: ${skipped} line(s) are not memory entries; compact keeps nothing it cannot read, so fix or remove them first`,
        );
      const live = new Set<MemoryFileEntry>(Object.values(materializeMemory(entries)).flat());
      const kept = entries.filter((e) => live.has(e));
      if (kept.length === entries.length) return { kept: kept.length, dropped: 0 };
      this.file.rewrite(kept);
      return { kept: kept.length, dropped: entries.length - kept.length };
    });
  }

  /** Tombstones every live entry of `types` created before `before`; returns them. */
  prune(before: Date, types: ReadonlySet<MemoryEntry["type"]>, reason: string): MemoryEntry[] {
    return this.file.locked(() => {
      const entries = this.entries();
      const old = Object.values(materializeMemory(entries))
        .flat()
        .filter((e: MemoryEntry) => types.has(e.type) && Date.parse(e.created) < before.getTime());
      const written: MemoryFileEntry[] = [...entries];
      for (const target of old) {
        const entry: MemoryFileEntry = {
          type: "tombstone",
          id: nextId(written, "ts"),
          targetId: target.id,
          reason,
          created: entryTimestamp(this.now()),
        };
        this.file.append(entry);
        written.push(entry);
      }
      return old;
    });
  }
}

/** `<prefix>-<lines in the file + 1>`, never at or below a number already used with it. */
function nextId(entries: readonly MemoryFileEntry[], prefix: string): string {
  let n = entries.length + 1;
  for (const e of entries) {
    const m = new RegExp(`^${prefix}-(\\d+)$`).exec(e.id);
    if (m !== null) n = Math.max(n, Number(m[1]) + 1);
  }
  return `${prefix}-${n}`;
}
