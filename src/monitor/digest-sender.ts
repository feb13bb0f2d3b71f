// Sends each `[[digest]]` at its cron through the outbox. What each digest covered last is
// kept in state_dir/monitor/digests.json, written only once its message is on disk in the
// outbox: a restart neither repeats a digest nor skips one, and one missed while the monitor
// was down goes out once when it starts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { DigestConfig } from "../scheduler/config/digests.js";
import { nextFireTime } from "../scheduler/timing/planner.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import type { DigestReport } from "./alerts/digest-report.js";
import type { AlertLogger } from "./channels/delivery.js";
import { digestMessage } from "./digest-read.js";
import type { Outbox } from "./outbox/outbox.js";

/** Per digest name: epoch ms up to which its runs were sent (or it was first seen). */
export type DigestMarks = Map<string, number>;

/** The first slot of `digest` after `coveredTo`: when it is next due. */
export function nextDigestAt(digest: DigestConfig, coveredTo: number): number | undefined {
  const spec = { name: digest.name, cron: digest.cron, timezone: digest.timezone, jitterMs: 0 };
  return nextFireTime(spec, new Date(coveredTo))?.getTime();
}

/**
 * What to do for each digest at `now`: a digest seen for the first time only starts its
 * period (sending at once would surprise); a due one is sent, covering the runs since it
 * last was, even when several of its slots passed while the monitor was down.
 */
export type DigestStep =
  | { kind: "first_seen"; digest: DigestConfig }
  | { kind: "send"; digest: DigestConfig; since: number };

export function digestSteps(
  digests: readonly DigestConfig[],
  marks: DigestMarks,
  now: number,
): DigestStep[] {
  const steps: DigestStep[] = [];
  for (const digest of digests) {
    const covered = marks.get(digest.name);
    if (covered === undefined) steps.push({ kind: "first_seen", digest });
    else if ((nextDigestAt(digest, covered) ?? Infinity) <= now)
      steps.push({ kind: "send", digest, since: covered });
  }
  return steps;
}

export function digestMarksPath(stateDir: string): string {
  return join(stateDir, "monitor", "digests.json");
}

/** The marks on disk; none when the file is missing or unreadable (logged by the caller). */
export function readDigestMarks(path: string): DigestMarks {
  try {
    const raw = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    const marks: DigestMarks = new Map();
    for (const [name, at] of Object.entries(raw)) {
      const ms = typeof at === "string" ? Date.parse(at) : Number.NaN;
      if (Number.isFinite(ms)) marks.set(name, ms);
    }
    return marks;
  } catch {
    return new Map();
  }
}

function writeDigestMarks(path: string, marks: DigestMarks): void {
  const out: Record<string, string> = {};
  for (const [name, at] of marks) out[name] = new Date(at).toISOString();
  writeFileAtomic(path, `${JSON.stringify(out, null, 2)}\n`);
}

export interface DigestSenderOptions {
  digests: readonly DigestConfig[];
  stateDir: string;
  outbox: Pick<Outbox, "enqueue" | "durable">;
  read: (digest: DigestConfig, since: number, until: number) => DigestReport;
  log: AlertLogger;
}

export class DigestSender {
  private readonly path: string;
  private readonly marks: DigestMarks;
  /** A pass in progress: the next tick waits for it rather than sending twice. */
  private busy: Promise<void> | undefined;

  constructor(private readonly options: DigestSenderOptions) {
    this.path = digestMarksPath(options.stateDir);
    this.marks = readDigestMarks(this.path);
  }

  /** Sends what is due at `now`; resolves once its marks are saved. */
  check(now: number): Promise<void> {
    if (this.options.digests.length === 0) return Promise.resolve();
    this.busy ??= this.pass(now).finally(() => {
      this.busy = undefined;
    });
    return this.busy;
  }

  /** Resolves once a pass in progress has saved its marks. */
  settled(): Promise<void> {
    return this.busy ?? Promise.resolve();
  }

  private async pass(now: number): Promise<void> {
    const steps = digestSteps(this.options.digests, this.marks, now);
    if (steps.length === 0) return;
    const { outbox, read, log } = this.options;
    for (const step of steps) {
      if (step.kind === "first_seen") {
        this.marks.set(step.digest.name, now);
        continue;
      }
      try {
        const report = read(step.digest, step.since, now);
        outbox.enqueue(digestMessage(report), step.digest.channels, now);
        this.marks.set(step.digest.name, now);
        log.info({ digest: step.digest.name, channels: step.digest.channels }, "digest sent");
      } catch (err) {
        log.error(
          { err, digest: step.digest.name },
          "digest: cannot read or enqueue; next tick tries again",
        );
      }
    }
    try {
      await outbox.durable(); // the messages before the marks that say they went
      writeDigestMarks(this.path, this.marks);
    } catch (err) {
      // Not saved: after a restart the digest is sent again rather than lost.
      log.error({ err, file: this.path }, "digest: cannot save what was sent");
    }
  }
}
