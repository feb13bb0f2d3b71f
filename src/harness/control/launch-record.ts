// What the harness says it launched, in the run's private folder (`launch.json`): the preset
// folder and a digest of its settings, the work dir and journal, the objective, the names of
// the variables it was given, its pid. `resume` and the operator's tools take a run's preset,
// directories and pid from here, never from the registry beside the journal (the run's agent
// can write that one).
import { hostname } from "node:os";
import * as z from "zod/mini";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { hexDigest } from "../../util/digest.js";
import { readSmallRegularFile } from "../../util/untrusted-file.js";
import { journalIdentity, type PrivateRunPaths, privateRunPaths } from "./private-run.js";

const launchRecordSchema = z.object({
  v: z.literal(1),
  runId: z.string(),
  preset: z.string(),
  presetDir: z.string(),
  presetDigest: z.string(),
  workDir: z.string(),
  journalFile: z.string(),
  objective: z.string(),
  trigger: z.string(),
  parentRunId: z.string(),
  maxIterations: z.int().check(z.nonnegative()),
  createdAt: z.string(),
  envNames: z.array(z.string()),
  /** `--profile` and `--no-default-profiles` as given (absent in older records: none). */
  profiles: z.optional(z.array(z.string())),
  noDefaultProfiles: z.optional(z.boolean()),
  pid: z.int().check(z.positive()),
  host: z.string(),
});

export type LaunchRecord = z.infer<typeof launchRecordSchema>;

/** The preset's settings (its command, arguments, environment, roles) as one digest. */
export function presetDigest(preset: { config: unknown; harnessInstructions: string }): string {
  return hexDigest(
    "sha256",
    JSON.stringify({ config: preset.config, harness: preset.harnessInstructions }),
  );
}

export function writeLaunchRecord(
  paths: PrivateRunPaths,
  record: Omit<LaunchRecord, "v" | "pid" | "host">,
): void {
  const full: LaunchRecord = { v: 1, ...record, pid: process.pid, host: hostname() };
  // Not fsynced: a machine crash that loses it ended the run too (resume then refuses it).
  writeFileAtomic(paths.launch, `${JSON.stringify(full, null, 2)}\n`, { durable: false });
}

/** The launch record of `runId`; undefined when this harness never launched it here. */
export function readLaunchRecord(
  runId: string,
  journalFile: string,
  env: NodeJS.ProcessEnv = process.env,
): LaunchRecord | undefined {
  // The folder is the operator's, but a same-user agent can still plant a FIFO or a link in it.
  const text = readSmallRegularFile(privateRunPaths(runId, journalFile, env).launch);
  if (text === undefined) return undefined;
  try {
    const parsed = launchRecordSchema.safeParse(JSON.parse(text));
    const ours = parsed.success && parsed.data.runId === runId;
    return ours && journalIdentity(parsed.data.journalFile) === journalIdentity(journalFile)
      ? parsed.data
      : undefined;
  } catch {
    return undefined;
  }
}
