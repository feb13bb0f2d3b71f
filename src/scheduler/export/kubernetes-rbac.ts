// With `[ha.kubernetes]`, the monitor's pods take turns by a Lease object: their own service
// account, and a Role that lets it create Leases and read and renew that one alone (pure).
import type { LeaseStoreConfig } from "../config/ha.js";
import { withNamespace } from "./kubernetes-objects.js";
import { NAMES } from "./kubernetes-pod.js";

const LEASES = { apiGroups: ["coordination.k8s.io"], resources: ["leases"] };

/** The ServiceAccount, Role and RoleBinding, by the file each is written to. */
export function leaseAccess(namespace: string | undefined, leaseName: string) {
  const meta = (name: string) => withNamespace(name, namespace, "lease");
  return {
    "serviceaccount-monitor.yaml": {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: meta(NAMES.monitor),
    },
    "role-lease.yaml": {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: meta(NAMES.leaseRole),
      rules: [
        // A create cannot be limited to one name (the object does not exist yet).
        { ...LEASES, verbs: ["create"] },
        { ...LEASES, resourceNames: [leaseName], verbs: ["get", "update"] },
      ],
    },
    "rolebinding-lease.yaml": {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: meta(NAMES.leaseRole),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: NAMES.leaseRole },
      subjects: [
        {
          kind: "ServiceAccount",
          name: NAMES.monitor,
          ...(namespace !== undefined && { namespace }),
        },
      ],
    },
  };
}

type KubernetesLease = Extract<LeaseStoreConfig, { kind: "kubernetes" }>;

/**
 * Why the Lease's settings would not work from the exported pods: a namespace other than the
 * one the Role is written to (refused), or a connection set for outside the cluster (warned).
 */
export function leaseProblems(
  lease: KubernetesLease,
  namespace: string | undefined,
): { refusal?: string; warnings: string[] } {
  const warnings: string[] = [];
  if (lease.apiServer !== undefined)
    warnings.push(
      `[ha.kubernetes] api_server is ${lease.apiServer}: in the cluster, leave it (and token_file, ca_file) unset so the pods use their own service account`,
    );
  if (lease.namespace === undefined || lease.namespace === namespace) return { warnings };
  if (namespace !== undefined)
    return {
      refusal: `[ha.kubernetes] namespace is ${lease.namespace} but --namespace is ${namespace}: the Role would not reach the Lease; export with --namespace ${lease.namespace}, or remove namespace from [ha.kubernetes] (the pod's own is the default)`,
      warnings,
    };
  warnings.push(
    `[ha.kubernetes] namespace is ${lease.namespace}: apply the manifests there (or export with --namespace ${lease.namespace}), or the Role will not reach the Lease`,
  );
  return { warnings };
}
