// `[ha]`: the lease daemons (and monitors) take turns by, and where it lives: files in the
// state dir, or a Kubernetes Lease object (`[ha.kubernetes]`) where the cluster offers one.
import * as z from "zod";
import type { FieldProblem } from "../../util/errors.js";
import { boundedDuration } from "./fields.js";

/** Where a pod's service account (token, CA, namespace) is mounted. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Where the lease lives; the Lease's API server and namespace default to the pod's own. */
export type LeaseStoreConfig =
  | { kind: "files" }
  | {
      kind: "kubernetes";
      name: string;
      namespace: string | undefined;
      apiServer: string | undefined;
      tokenFile: string;
      caFile: string;
    };

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const haSchema = z
  .strictObject({
    lease: boundedDuration(1000, 600_000, '"1s" to "10m", such as "15s"').optional(),
    kubernetes: z
      .strictObject({
        name: z
          .string()
          .max(253)
          .regex(DNS_SUBDOMAIN, "a Kubernetes object name such as autoloop-cron")
          .default("autoloop-cron"),
        namespace: z
          .string()
          .max(63)
          .regex(DNS_LABEL, "a namespace such as agents (lowercase letters, digits and -)")
          .optional(),
        api_server: z
          .url({ protocol: /^https?$/, error: "an address such as https://10.0.0.1:443" })
          .optional(),
        token_file: z.string().min(1).optional(),
        ca_file: z.string().min(1).optional(),
      })
      .optional(),
  })
  .prefault({});

type RawHa = z.output<typeof haSchema>;

/** `[ha]` resolved: the lease's length (undefined: no lease) and where it lives. */
export function resolveHa(
  raw: RawHa,
  fileName: string,
  abs: (p: string) => string,
  problems: FieldProblem[],
): { leaseMs: number | undefined; leaseStore: LeaseStoreConfig } {
  const k = raw.kubernetes;
  if (k === undefined) return { leaseMs: raw.lease, leaseStore: { kind: "files" } };
  const problem = (field: string, found: string, expected: string) =>
    problems.push({ file: fileName, field, found, expected });
  if (raw.lease === undefined)
    problem("ha.kubernetes", "a Lease object but no ha.lease", 'lease = "15s" in [ha] beside it');
  else if (raw.lease % 1000 !== 0)
    problem(
      "ha.lease",
      `${raw.lease}ms`,
      'whole seconds with [ha.kubernetes] (a Lease counts leaseDurationSeconds), such as "15s"',
    );
  if (k.api_server !== undefined && !plainAllowed(k.api_server))
    problem(
      "ha.kubernetes.api_server",
      JSON.stringify(k.api_server),
      "an https:// address (http:// only on loopback, where `kubectl proxy` serves)",
    );
  return {
    leaseMs: raw.lease,
    leaseStore: {
      kind: "kubernetes",
      name: k.name,
      namespace: k.namespace,
      apiServer: k.api_server?.replace(/\/+$/, ""),
      tokenFile: abs(k.token_file ?? `${SERVICE_ACCOUNT_DIR}/token`),
      caFile: abs(k.ca_file ?? `${SERVICE_ACCOUNT_DIR}/ca.crt`),
    },
  };
}

/** https anywhere; plain http only to this machine (a token never crosses a network in clear). */
function plainAllowed(address: string): boolean {
  const url = new URL(address);
  if (url.protocol === "https:") return true;
  return ["localhost", "[::1]"].includes(url.hostname) || /^127(\.\d{1,3}){3}$/.test(url.hostname);
}
