// Run ids: sortable, unique enough for concurrent launches, and safe inside a path.
import { randomBytes } from "node:crypto";

export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function isValidRunId(id: string): boolean {
  return RUN_ID_PATTERN.test(id) && !id.includes("..");
}

/** `run-20261121T204500-k3x9qa`: UTC start time plus 6 random base-36 characters. */
export function newRunId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").slice(0, 15);
  const rand = [...randomBytes(6)].map((b) => (b % 36).toString(36)).join("");
  return `run-${stamp}-${rand}`;
}
