// The objects every Kubernetes deployment of autoloop-cron has once (pure): the monitor's
// Deployment, the volume claim and the ConfigMap holding the config and schedule files.
import {
  type AccessMode,
  baseContainer,
  CONFIG_FILE_IN_POD,
  type ConfigItem,
  commonLabels,
  NAMES,
  podSecurityContext,
  podVolumes,
  TERMINATION_GRACE_SECONDS,
} from "./kubernetes-pod.js";

export const withNamespace = (name: string, namespace: string | undefined, component: string) => ({
  name,
  ...(namespace ? { namespace } : {}),
  labels: commonLabels(component),
});

/**
 * The monitor follows the journals on the volume and alerts. One replica unless `[ha] lease`
 * lets more take turns (the others stand by), replaced with Recreate: two monitors would
 * alert twice, and a ReadWriteOnce volume cannot be attached to the old and the new pod on
 * different nodes at once.
 */
export function monitorDeployment(o: {
  image: string;
  namespace: string | undefined;
  configItems: ConfigItem[];
  /** The port of [http] listen; undefined when the config disables it (no probes then). */
  httpPort: number | undefined;
  replicas: number;
  /** With a Lease to take turns by: the service account allowed to hold it. */
  serviceAccountName?: string;
  /**
   * A schedule sets `preflight`: the monitor checks the agents' logins before their slots (no
   * daemon does here), so it needs their credentials as the runs get them.
   */
  agentCredentials?: boolean;
}) {
  // The monitor sends the alerts: it alone gets the channels' secrets; agent keys only for
  // preflight, and its checks are given no channel secret (runEnvironment).
  const base = baseContainer(
    "monitor",
    o.image,
    ["autoloop-cron", "monitor", "--config", CONFIG_FILE_IN_POD],
    NAMES.alertSecret,
  );
  const agentSecret = { secretRef: { name: NAMES.agentSecret, optional: false } };
  const container = o.agentCredentials
    ? { ...base, envFrom: [...base.envFrom, agentSecret] }
    : base;
  const probe = (periodSeconds: number) => ({
    httpGet: { path: "/healthz", port: "http" },
    periodSeconds,
    failureThreshold: 3,
  });
  const http =
    o.httpPort === undefined
      ? {}
      : {
          ports: [{ name: "http", containerPort: o.httpPort }],
          livenessProbe: { ...probe(30), initialDelaySeconds: 10 },
          readinessProbe: probe(10),
        };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: withNamespace(NAMES.monitor, o.namespace, "monitor"),
    spec: {
      replicas: o.replicas,
      strategy: { type: "Recreate" },
      selector: { matchLabels: commonLabels("monitor") },
      template: {
        metadata: { labels: commonLabels("monitor") },
        spec: {
          ...(o.serviceAccountName !== undefined && {
            serviceAccountName: o.serviceAccountName,
            automountServiceAccountToken: true,
          }),
          terminationGracePeriodSeconds: TERMINATION_GRACE_SECONDS,
          securityContext: podSecurityContext,
          containers: [{ ...container, ...http }],
          volumes: podVolumes(o.configItems),
        },
      },
    },
  };
}

/**
 * ReadWriteMany by default: the monitor and the runs' pods mount it on whatever nodes they
 * land on. ReadWriteOnce works only with every pod on one node (see `sameNodeAsMonitor`).
 */
export function dataClaim(namespace: string | undefined, storage: string, mode: AccessMode) {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: withNamespace(NAMES.pvc, namespace, "data"),
    spec: { accessModes: [mode], resources: { requests: { storage } } },
  };
}

export function configMap(namespace: string | undefined, data: Record<string, string>) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: withNamespace(NAMES.configMap, namespace, "config"),
    data,
  };
}

/** A quantity such as "10Gi" or "500M", as Kubernetes accepts for storage requests. */
export const STORAGE_QUANTITY = /^\d+(\.\d+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;
