// What every autoloop-cron pod shares: the image's user, the config and data mounts, secrets.

export const CONFIG_DIR_IN_POD = "/etc/autoloop-cron";
export const CONFIG_FILE_IN_POD = `${CONFIG_DIR_IN_POD}/autoloop-cron.toml`;
/** The persistent volume: state, journals and the repositories the agents work in. */
export const DATA_DIR_IN_POD = "/var/lib/autoloop-cron";

export const NAMES = {
  pvc: "autoloop-cron-data",
  configMap: "autoloop-cron-config",
  /** SMTP URL, webhook URL and secret: the monitor's alone. */
  alertSecret: "autoloop-cron-alert-secrets",
  /** Agent credentials (ANTHROPIC_API_KEY, ...): the runs' alone. */
  agentSecret: "autoloop-cron-agent-secrets",
  monitor: "autoloop-cron-monitor",
  /** The Role (and its binding) that lets the monitor's service account hold the Lease. */
  leaseRole: "autoloop-cron-lease",
} as const;

export type AccessMode = "ReadWriteMany" | "ReadWriteOnce";

/**
 * With a ReadWriteOnce claim every pod that mounts it must run on the monitor's node: runs
 * are pinned there with pod affinity (the explicit choice for clusters without RWX storage).
 */
export function sameNodeAsMonitor(mode: AccessMode) {
  if (mode === "ReadWriteMany") return {};
  return {
    affinity: {
      podAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            labelSelector: { matchLabels: commonLabels("monitor") },
            topologyKey: "kubernetes.io/hostname",
          },
        ],
      },
    },
  };
}

/** The image's non-root user (deploy/docker/Dockerfile creates it with this id). */
export const POD_UID = 10001;

/** Longer than the daemon's default shutdown_grace (30 s), so a run can stop cleanly. */
export const TERMINATION_GRACE_SECONDS = 90;

export const commonLabels = (component: string) => ({
  "app.kubernetes.io/name": "autoloop-cron",
  "app.kubernetes.io/component": component,
});

/** A ConfigMap item: its key and where it appears under CONFIG_DIR_IN_POD. */
export interface ConfigItem {
  key: string;
  path: string;
}

export function podVolumes(items: ConfigItem[]) {
  return [
    { name: "config", configMap: { name: NAMES.configMap, items } },
    { name: "data", persistentVolumeClaim: { claimName: NAMES.pvc } },
    // The root filesystem is read-only; tools still need a scratch /tmp.
    { name: "tmp", emptyDir: {} },
  ];
}

export const podSecurityContext = {
  runAsNonRoot: true,
  runAsUser: POD_UID,
  runAsGroup: POD_UID,
  // Makes the volume writable by the pod's group.
  fsGroup: POD_UID,
  seccompProfile: { type: "RuntimeDefault" },
};

/**
 * The container fields every autoloop-cron container has; `args` keep tini as PID 1. The
 * Secret is required (optional: false): a missing one stops the pod at once with an event
 * naming it, instead of runs failing later for want of a key.
 */
export function baseContainer(name: string, image: string, args: string[], secret: string) {
  return {
    name,
    image,
    args,
    // Agent CLIs keep their login and caches in $HOME: on the volume, so they persist.
    env: [{ name: "HOME", value: DATA_DIR_IN_POD }],
    envFrom: [{ secretRef: { name: secret, optional: false } }],
    volumeMounts: [
      { name: "config", mountPath: CONFIG_DIR_IN_POD, readOnly: true },
      { name: "data", mountPath: DATA_DIR_IN_POD },
      { name: "tmp", mountPath: "/tmp" },
    ],
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
    },
  };
}
