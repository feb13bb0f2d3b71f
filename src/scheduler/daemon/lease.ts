// The daemons' lease on a shared state dir (`[ha] lease`): one file per generation in
// `<state_dir>/lease/`, the highest one in force. Taking the lease is creating the next
// generation (link(2): one creator wins, even on NFS); only its holder rewrites it to renew.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { createByLink } from "../../util/link-create.js";
import { readSmallRegularFile } from "../../util/untrusted-file.js";

export const LEASE_DIR = "lease";

/** One generation of the lease, as its file holds it (docs/formats.md, "The lease"). */
export interface LeaseRecord {
  v: 1;
  generation: number;
  /** `<host id>/<pid>/<start>`: this daemon, and no other before or after it. */
  holder: string;
  acquiredAt: string;
  renewedAt: string;
  expiresAt: string;
}

/** The generation in force: its number, and its record when the file reads as one. */
export interface LeaseInForce {
  generation: number;
  record: LeaseRecord | undefined;
  /** The store's version of what was read (a Lease's resourceVersion), for a conditional write. */
  version?: string;
}

/** What a daemon does next with the lease, from what it finds on disk (pure: `leaseStep`). */
export type LeaseStep =
  | { kind: "take"; generation: number }
  | { kind: "renew"; record: LeaseRecord }
  | { kind: "wait"; holder: string; expiresAt: number }
  | { kind: "lost"; reason: string };

/**
 * The next step for `me` (holding it or not) at `now`. A holder renews only while more than
 * `marginMs` is left: a renewal written later could land after a standby found the lease
 * lapsed and took it, and two daemons would fire. An unreadable generation counts as lapsed.
 */
export function leaseStep(
  inForce: LeaseInForce | undefined,
  me: string,
  holding: boolean,
  now: number,
  marginMs: number,
): LeaseStep {
  const record = inForce?.record;
  const expiresAt = record === undefined ? 0 : Date.parse(record.expiresAt);
  if (holding) {
    if (record?.holder !== me)
      return { kind: "lost", reason: `taken by ${record?.holder ?? "an unreadable lease file"}` };
    if (now >= expiresAt - marginMs)
      return { kind: "lost", reason: `not renewed in time (it lapses at ${record.expiresAt})` };
    return { kind: "renew", record };
  }
  // Its own name with no hold on it: a take whose answer was lost (a Lease's API timed out).
  if (record === undefined || now >= expiresAt || record.holder === me)
    return { kind: "take", generation: (inForce?.generation ?? 0) + 1 };
  return { kind: "wait", holder: record.holder, expiresAt };
}

const fileName = (generation: number) => `${String(generation).padStart(12, "0")}.json`;
const GENERATION_FILE = /^(\d{12})\.json$/;

function generations(dir: string): number[] {
  try {
    return readdirSync(dir)
      .map((f) => GENERATION_FILE.exec(f)?.[1])
      .filter((g) => g !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}

/** A generation's record, or undefined when it does not read as one (it is not trusted). */
function parseRecord(text: string, generation: number): LeaseRecord | undefined {
  try {
    const r = JSON.parse(text) as Partial<LeaseRecord>;
    const ok =
      r.v === 1 &&
      r.generation === generation &&
      typeof r.holder === "string" &&
      typeof r.acquiredAt === "string" &&
      typeof r.renewedAt === "string" &&
      typeof r.expiresAt === "string" &&
      !Number.isNaN(Date.parse(r.expiresAt));
    return ok ? (r as LeaseRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** The lease's files on one state dir. */
export class LeaseFiles {
  readonly dir: string;

  constructor(stateDir: string) {
    this.dir = join(stateDir, LEASE_DIR);
  }

  /**
   * The highest generation, undefined when none was ever taken. Its file is read as a run
   * could have left it (no link followed, no FIFO waited on, a few KiB at most).
   */
  read(): LeaseInForce | undefined {
    const generation = generations(this.dir).at(-1);
    if (generation === undefined) return undefined;
    const text = readSmallRegularFile(join(this.dir, fileName(generation)), 4096);
    return { generation, record: text === undefined ? undefined : parseRecord(text, generation) };
  }

  /**
   * Creates generation `record.generation`; true if this call made it and, read again, it is
   * still the one in force with this holder. Older generations are pruned (the last kept).
   */
  take(record: LeaseRecord): boolean {
    const path = join(this.dir, fileName(record.generation));
    const own = `${path}.${process.pid}.${Date.now().toString(36)}.tmp`;
    if (!createByLink(path, own, `${JSON.stringify(record)}\n`)) return false;
    const now = this.read();
    if (now?.generation !== record.generation || now.record?.holder !== record.holder) return false;
    for (const g of generations(this.dir))
      if (g < record.generation - 1) rmSync(join(this.dir, fileName(g)), { force: true });
    return true;
  }

  /** Rewrites the holder's own generation (temp file and rename: never half of it). */
  write(record: LeaseRecord): void {
    writeFileAtomic(join(this.dir, fileName(record.generation)), `${JSON.stringify(record)}\n`);
  }
}
