// How a run of our harness ended and what this process spent, in the run's private folder
// (`end.json`), written beside its `loop.complete`/`loop.stop`. The daemon books a run's spend
// from here: the journal's terminal record is in the project, where the run's agent can
// rewrite it (docs/formats.md, "Who writes what").
import * as z from "zod/mini";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { readSmallRegularFile } from "../../util/untrusted-file.js";
import { type PrivateRunPaths, privateRunPaths } from "./private-run.js";

/** What a run's agent calls spent, as its harness counted it (the terminal record's figures). */
export interface SpentFigures {
  /** Of the agent calls whose cost is known, to six decimals. */
  costUsd: number;
  totalTokens: number;
  /** Agent calls whose cost is unknown. */
  unpricedIterations: number;
}

const endRecordSchema = z.object({
  v: z.literal(1),
  runId: z.string(),
  reason: z.string(),
  complete: z.boolean(),
  costUsd: z.optional(z.number()),
  totalTokens: z.optional(z.number()),
  unpricedIterations: z.optional(z.int().check(z.nonnegative())),
  /** Iterations this process ran (a resumed run's earlier part wrote its own record). */
  iterations: z.int().check(z.nonnegative()),
  endedAt: z.string(),
  pid: z.int().check(z.positive()),
});

export type EndRecord = z.infer<typeof endRecordSchema>;

/** A record is a few hundred bytes; a bigger file is not the harness's. */
const MAX_BYTES = 64 * 1024;

/**
 * Writes `end.json`. A run that cannot write it still ends as it would (its spend then counts
 * as at least its ceiling: docs/formats.md), and says so through `warn`.
 */
export function writeEndRecord(
  paths: PrivateRunPaths,
  end: { runId: string; reason: string; complete: boolean; iterations: number },
  spent: SpentFigures | undefined,
  warn: (line: string) => void,
): void {
  const { runId, reason, complete, iterations } = end;
  const record: EndRecord = {
    ...{ v: 1, runId, reason, complete },
    ...(spent !== undefined && spent),
    iterations,
    endedAt: new Date().toISOString(),
    pid: process.pid,
  };
  try {
    // Not fsynced: one lost in a machine crash counts the run at its ceiling, never below.
    writeFileAtomic(paths.end, `${JSON.stringify(record, null, 2)}\n`, { durable: false });
  } catch (err) {
    warn(
      `warning: the run's end record ${paths.end} cannot be written (${(err as Error).message}): a schedule's budget counts this run as at least its ceiling`,
    );
  }
}

/** The end record of run `runId` of `journalFile`; undefined when there is none that parses. */
export function readEndRecord(
  runId: string,
  journalFile: string,
  env: NodeJS.ProcessEnv = process.env,
): EndRecord | undefined {
  try {
    const text = readSmallRegularFile(privateRunPaths(runId, journalFile, env).end, MAX_BYTES);
    if (text === undefined) return undefined;
    const parsed = endRecordSchema.safeParse(JSON.parse(text));
    return parsed.success && parsed.data.runId === runId ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Adds what the chains a run spawned spent to its end record, so a schedule's budget books
 * the whole tree under the run it launched. Nothing when the run left no record.
 */
export function addToEndRecord(
  runId: string,
  journalFile: string,
  env: NodeJS.ProcessEnv,
  extra: SpentFigures,
  warn: (line: string) => void,
): void {
  const end = readEndRecord(runId, journalFile, env);
  if (end === undefined) return;
  const paths = privateRunPaths(runId, journalFile, env);
  writeEndRecord(
    paths,
    end,
    {
      costUsd: Number(((end.costUsd ?? 0) + extra.costUsd).toFixed(6)),
      totalTokens: (end.totalTokens ?? 0) + extra.totalTokens,
      unpricedIterations: (end.unpricedIterations ?? 0) + extra.unpricedIterations,
    },
    warn,
  );
}
