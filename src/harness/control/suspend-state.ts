// A run a hook suspended (`on_error = "suspend"`): the public autoloop's `suspend-state.json`,
// kept in the run's private folder rather than its state dir, which the run's agent writes.
// `autoloop resume` goes on from its `resumeIteration`; `autoloop hooks clear-suspend` drops it.
import { rmSync } from "node:fs";
import { join } from "node:path";
import * as z from "zod/mini";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { readSmallRegularFile } from "../../util/untrusted-file.js";
import { HOOK_PHASES } from "../preset/hooks.js";
import type { PrivateRunPaths } from "./private-run.js";

export const SUSPEND_STATE_SCHEMA_VERSION = 1;

/** The public autoloop's fields, in its order. */
const suspendStateSchema = z.object({
  schemaVersion: z.number(),
  runId: z.string(),
  phase: z.enum(HOOK_PHASES),
  /** The iteration under way when the hook failed (0 before the first). */
  iteration: z.int(),
  reason: z.string(),
  hookCommand: z.string(),
  createdAt: z.string(),
  resumeIteration: z.int(),
});

export type SuspendState = z.infer<typeof suspendStateSchema>;

const MAX_BYTES = 64 * 1024;

export function suspendStatePath(paths: Pick<PrivateRunPaths, "dir">): string {
  return join(paths.dir, "suspend-state.json");
}

export function writeSuspendState(
  paths: Pick<PrivateRunPaths, "dir">,
  state: Omit<SuspendState, "schemaVersion">,
): SuspendState {
  const full: SuspendState = { schemaVersion: SUSPEND_STATE_SCHEMA_VERSION, ...state };
  writeFileAtomic(suspendStatePath(paths), `${JSON.stringify(full, null, 2)}\n`, {
    durable: true,
  });
  return full;
}

/** The run's suspend state; undefined when there is none that parses. */
export function readSuspendState(paths: Pick<PrivateRunPaths, "dir">): SuspendState | undefined {
  try {
    const text = readSmallRegularFile(suspendStatePath(paths), MAX_BYTES);
    if (text === undefined) return undefined;
    const parsed = suspendStateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the suspend state; true when there was one. */
export function clearSuspendState(paths: Pick<PrivateRunPaths, "dir">): boolean {
  const file = suspendStatePath(paths);
  const had = readSmallRegularFile(file, MAX_BYTES) !== undefined;
  rmSync(file, { force: true });
  return had;
}
