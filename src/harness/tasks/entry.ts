// Task entries and their exact byte style (docs/formats.md, "Tasks file").
import { encodeObject } from "../../journal/codec.js";

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

export interface TombstoneEntry {
  type: "task-tombstone";
  id: string;
  targetId: string;
  reason: string;
  created: string;
}

export type TasksFileEntry = TaskEntry | TombstoneEntry;

/** Task timestamps carry no milliseconds: `2026-04-07T12:00:00Z`. */
export function taskTimestamp(now: Date = new Date()): string {
  return `${now.toISOString().slice(0, 19)}Z`;
}

/**
 * Encodes an entry exactly as the public autoloop writes it. Its reader finds fields by
 * text, so key order, spacing and string-typed `soft` matter.
 */
export function encodeTaskEntry(entry: TasksFileEntry): string {
  if (entry.type === "task-tombstone") {
    return encodeObject({
      id: entry.id,
      type: entry.type,
      target_id: entry.targetId,
      reason: entry.reason,
      created: entry.created,
    });
  }
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

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Decodes one line of a tasks file; `undefined` for lines that are not entries. */
export function decodeTaskEntry(line: string): TasksFileEntry | undefined {
  let obj: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
    obj = parsed as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const id = str(obj.id);
  if (id === undefined) return undefined;
  if (obj.type === "task-tombstone") {
    const targetId = str(obj.target_id);
    if (targetId === undefined) return undefined;
    return {
      type: "task-tombstone",
      id,
      targetId,
      reason: str(obj.reason) ?? "",
      created: str(obj.created) ?? "",
    };
  }
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
