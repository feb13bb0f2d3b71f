// Where the daemons' lease lives, behind one interface the keeper uses: the state dir's files
// (`lease.ts`), or a Kubernetes Lease object (`kubernetes-lease.ts`, loaded only when configured).
import type { LeaseStoreConfig } from "../config/ha.js";
import { LeaseFiles, type LeaseInForce, type LeaseRecord } from "./lease.js";

export interface LeaseStore {
  /** Where the lease is, for logs: a folder, or `<namespace>/<name>` of a Lease. */
  readonly where: string;
  /** What is in force, undefined when no lease was ever taken. */
  read(): Promise<LeaseInForce | undefined>;
  /** Writes `record` over what `found` read; false when another daemon wrote first (it won). */
  take(record: LeaseRecord, found: LeaseInForce | undefined): Promise<boolean>;
  /** The holder's renewal over what `found` read; false when another daemon wrote first. */
  renew(record: LeaseRecord, found: LeaseInForce): Promise<boolean>;
  /** Ends `held` now if it is still in force (a clean stop), so a standby takes it at once. */
  release(held: LeaseRecord, now: number): Promise<void>;
}

/** The lease as files in `<state_dir>/lease/` (a shared volume: hosts without a cluster). */
export function fileLeaseStore(stateDir: string): LeaseStore {
  const files = new LeaseFiles(stateDir);
  return {
    where: files.dir,
    read: async () => files.read(),
    take: async (record) => files.take(record),
    renew: async (record) => {
      files.write(record);
      return true;
    },
    release: async (held, now) => {
      if (files.read()?.record?.holder !== held.holder) return;
      files.write({ ...held, expiresAt: new Date(now).toISOString() });
    },
  };
}

/** The store `[ha]` names; a Lease's client is loaded only here, when it is configured. */
export async function openLeaseStore(
  config: LeaseStoreConfig,
  stateDir: string,
  leaseMs: number,
): Promise<LeaseStore> {
  if (config.kind === "files") return fileLeaseStore(stateDir);
  const { kubernetesLeaseStore } = await import("./kubernetes-lease.js");
  return kubernetesLeaseStore(config, leaseMs);
}
