// The lease as a Kubernetes Lease object (coordination.k8s.io/v1), both ways (pure): the
// generation is `leaseTransitions + 1`, the expiry `renewTime + leaseDurationSeconds`.
import type { LeaseInForce, LeaseRecord } from "./lease.js";

/** The fields of a Lease this reads and writes (the API server adds more to `metadata`). */
export interface LeaseObject {
  apiVersion: "coordination.k8s.io/v1";
  kind: "Lease";
  metadata: { name: string; namespace: string; resourceVersion?: string; labels?: object };
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** A MicroTime, as the API server parses it: RFC 3339 to the microsecond, not the millisecond. */
export function microTime(iso: string): string {
  return iso.replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * What a Lease read from the API says. One with no holder (released, or written by someone
 * else's tool) or no times reads as lapsed, like an unreadable lease file.
 */
export function leaseInForce(object: LeaseObject): LeaseInForce {
  const s = object.spec ?? {};
  const transitions = Number.isInteger(s.leaseTransitions) ? (s.leaseTransitions as number) : 0;
  const generation = Math.max(0, transitions) + 1;
  const renewed = Date.parse(s.renewTime ?? "");
  const seconds = s.leaseDurationSeconds ?? 0;
  const version = object.metadata?.resourceVersion;
  const found = { generation, ...(version !== undefined && { version }) };
  if (!s.holderIdentity || Number.isNaN(renewed) || !(seconds > 0))
    return { ...found, record: undefined };
  const acquired = Date.parse(s.acquireTime ?? "");
  const record: LeaseRecord = {
    v: 1,
    generation,
    holder: s.holderIdentity,
    acquiredAt: new Date(Number.isNaN(acquired) ? renewed : acquired).toISOString(),
    renewedAt: new Date(renewed).toISOString(),
    expiresAt: new Date(renewed + seconds * 1000).toISOString(),
  };
  return { ...found, record };
}

/** The Lease that says `record` in full, or (`released`) its times with no holder: lapsed. */
export function leaseObject(
  where: { name: string; namespace: string },
  leaseMs: number,
  record: LeaseRecord,
  version?: string,
  released = false,
): LeaseObject {
  return {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: {
      ...where,
      ...(version !== undefined && { resourceVersion: version }),
      labels: { "app.kubernetes.io/name": "autoloop-cron" },
    },
    spec: {
      ...(!released && { holderIdentity: record.holder }),
      leaseDurationSeconds: Math.ceil(leaseMs / 1000),
      acquireTime: microTime(record.acquiredAt),
      renewTime: microTime(record.renewedAt),
      leaseTransitions: record.generation - 1,
    },
  };
}
