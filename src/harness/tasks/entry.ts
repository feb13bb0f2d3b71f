// Task entries and their exact byte style (docs/formats.md, "Tasks file").
import { encodeObject } from "../../journal/codec.js";
import {
  decodeTombstone,
  encodeTombstone,
  parseObjectLine,
  str,
  type Tombstone,
} from "../store/jsonl-store.js";

export type TaskPriority = "high" | "normal" | "low";
export const TASK_PRIORITIES: readonly TaskPriority[] = ["high", "normal", "low"];

export interface TaskEntry {
  type: "task";
  id: string;
  text: string;
  status: "open" | "done";
  source: string;
  created: string;
  completed?: string;
  priority: TaskPriority;
  soft: boolean;
}

export type TombstoneEntry = Tombstone<"task-tombstone">;

export type TasksFileEntry = TaskEntry | TombstoneEntry;

/**
 * Encodes an entry exactly as the public autoloop writes it. Its reader finds fields by
 * text, so key order, spacing and string-typed `soft` matter.
 */
export function encodeTaskEntry(entry: TasksFileEntry): string {
  if (entry.type === "task-tombstone") return encodeTombstone(entry);
  return encodeObject({
    id: entry.id,
    type: entry.type,
    text: entry.text,
    status: entry.status,
    source: entry.source,
    created: entry.created,
    completed: entry.completed,
    priority: entry.priority === "normal" ? undefined : entry.priority,
    soft: entry.soft ? "true" : undefined,
  });
}

/** Decodes one line of a tasks file; `undefined` for lines that are not entries. */
export function decodeTaskEntry(line: string): TasksFileEntry | undefined {
  const obj = parseObjectLine(line);
  const id = str(obj?.id);
  if (obj === undefined || id === undefined) return undefined;
  if (obj.type === "task-tombstone") return decodeTombstone("task-tombstone", id, obj);
  if (obj.type !== "task") return undefined;
  const priority = obj.priority === "high" || obj.priority === "low" ? obj.priority : "normal";
  const entry: TaskEntry = {
    type: "task",
    id,
    text: str(obj.text) ?? "",
    status: obj.status === "done" ? "done" : "open",
    source: str(obj.source) ?? "manual",
    created: str(obj.created) ?? "",
    priority,
    soft: obj.soft === "true" || obj.soft === true,
  };
  const completed = str(obj.completed);
  if (completed !== undefined) entry.completed = completed;
  return entry;
}
