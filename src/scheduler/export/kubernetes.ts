// `autoloop-cron export kubernetes` as a pure function: schedules and files in, YAML files out,
// with a warning for every setting that will not work in a cluster as written.
import { relative } from "node:path";
import { Document } from "yaml";
import type { CronConfig } from "../config/config.js";
import { checksLogins } from "../preflight/preflights.js";
import type { Schedule } from "../schedules/schedule-file.js";
import { cronJob } from "./kubernetes-cronjob.js";
import { configMap, dataClaim, monitorDeployment } from "./kubernetes-objects.js";
import { type AccessMode, type ConfigItem, DATA_DIR_IN_POD, NAMES } from "./kubernetes-pod.js";
import { leaseAccess, leaseProblems } from "./kubernetes-rbac.js";
import { KUBERNETES_TARGET } from "./kubernetes-schedule.js";
import { refusalMessage } from "./selection.js";
import type { ExportFile, ExportResult } from "./write-out.js";

export interface KubernetesExportInput {
  config: CronConfig;
  schedules: Schedule[];
  configText: string;
  /** Each schedule file, by its path relative to the config file's folder. */
  scheduleFiles: { path: string; text: string }[];
  image: string;
  namespace: string | undefined;
  storage: string;
  accessMode: AccessMode;
  /** Monitor replicas; more than one take turns by `[ha] lease` (checked by the caller). */
  replicas?: number;
}

export function yamlFile(name: string, object: unknown, comments: string[] = []): ExportFile {
  const doc = new Document(object, { aliasDuplicateObjects: false });
  if (comments.length > 0) doc.commentBefore = comments.map((c) => ` ${c}`).join("\n");
  // lineWidth 0: never fold long strings (commands, annotations) across lines.
  return { name, text: doc.toString({ lineWidth: 0 }) };
}

/** ConfigMap keys allow only [-._a-zA-Z0-9]; the item path puts the file back in its folder. */
function configItems(input: KubernetesExportInput) {
  const data: Record<string, string> = { "autoloop-cron.toml": input.configText };
  const items: ConfigItem[] = [{ key: "autoloop-cron.toml", path: "autoloop-cron.toml" }];
  for (const f of input.scheduleFiles) {
    const key = f.path.replace(/[^-._a-zA-Z0-9]/g, "_");
    data[key] = f.text;
    items.push({ key, path: f.path });
  }
  return { data, items };
}

const onVolume = (p: string) => p === DATA_DIR_IN_POD || p.startsWith(`${DATA_DIR_IN_POD}/`);

function pathWarnings(input: KubernetesExportInput): string[] {
  const { config } = input;
  const fix = `use an absolute path under ${DATA_DIR_IN_POD} (the volume's mount) in the files you deploy`;
  const warnings: string[] = [];
  if (!onVolume(config.stateDir)) {
    warnings.push(`state_dir is ${config.stateDir}, not on the persistent volume: ${fix}`);
  }
  for (const s of input.schedules) {
    if (!onVolume(s.projectDir)) {
      const rel = relative(config.dir, s.projectDir);
      warnings.push(
        `schedule "${s.name}": project_dir is ${rel === "" ? "the config folder" : s.projectDir}, not on the persistent volume: ${fix}`,
      );
    }
  }
  const http = config.http;
  if (!http.enabled) {
    warnings.push("[http] listen is off: the monitor Deployment gets no health probes");
  } else if (/^(127\.|::1$|localhost$)/.test(http.host)) {
    warnings.push(
      `[http] listen is ${http.host}:${http.port}: kubelet probes connect to the pod's IP, so set listen = "0.0.0.0:${http.port}" in the config you deploy`,
    );
  }
  return warnings;
}

/**
 * What a schedule asks that the Kubernetes mode cannot do, refused rather than dropped (each
 * other key's fate is in docs/kubernetes.md): event triggers need the daemon's HTTP server,
 * and the cluster runs only the monitor.
 */
function unkeptInKubernetes(s: Schedule): string | undefined {
  if (s.hook !== undefined)
    return "hook (an event trigger, POST /hooks/<schedule>) needs the daemon's HTTP server, which the Kubernetes mode does not run; remove hook from the schedule to export it (its CronJob fires by cron only), or run the daemon for it";
  if (s.catchUp.mode === "all")
    return 'catch_up = "all" runs every missed slot, but a CronJob starts only the most recent one; set catch_up = "latest" for this schedule to export it, or run the daemon for it';
  return undefined;
}

export function kubernetesExport(input: KubernetesExportInput): ExportResult {
  const { data, items } = configItems(input);
  const pod = {
    image: input.image,
    namespace: input.namespace,
    configItems: items,
    accessMode: input.accessMode,
  };
  const refusals: string[] = [];
  const warnings = pathWarnings(input);
  const cronJobs: ExportFile[] = [];
  for (const s of input.schedules) {
    const unkept = unkeptInKubernetes(s);
    if (unkept !== undefined) {
      refusals.push(`${s.file}: schedule "${s.name}": ${unkept}`);
      continue;
    }
    const job = cronJob(s, pod);
    if (job.kind === "refused") {
      refusals.push(refusalMessage(s, KUBERNETES_TARGET, job.reason));
      continue;
    }
    if (job.value.warning !== undefined) warnings.push(job.value.warning);
    if (s.overlap === "queue") {
      warnings.push(
        `schedule "${s.name}": overlap = "queue" becomes Forbid (Kubernetes has no queue)`,
      );
    }
    cronJobs.push(yamlFile(`cronjob-${job.value.name}.yaml`, job.value.object, job.value.comments));
  }
  const lease = leaseFiles(input);
  if (lease.refusal !== undefined) refusals.push(lease.refusal);
  warnings.push(...lease.warnings);
  if (refusals.length > 0) return { kind: "refused", refusals };
  const httpPort = input.config.http.enabled ? input.config.http.port : undefined;
  const preflight = input.schedules.some(checksLogins);
  const files = [
    yamlFile(
      "pvc.yaml",
      dataClaim(input.namespace, input.storage, input.accessMode),
      input.accessMode === "ReadWriteMany"
        ? [
            "ReadWriteMany: the monitor and the runs mount it from any node; the cluster needs a",
            "storage class that offers it (NFS, CephFS, EFS, Filestore, ...). Without one, export",
            "with --access-mode ReadWriteOnce, which pins every run to the monitor's node.",
          ]
        : [
            "ReadWriteOnce: every run's pod is pinned to the monitor's node (pod affinity),",
            "since only one node can mount the claim.",
          ],
    ),
    yamlFile("configmap.yaml", configMap(input.namespace, data), [
      "The config and schedule files, mounted read-only at /etc/autoloop-cron.",
    ]),
    yamlFile(
      "deployment-monitor.yaml",
      monitorDeployment({
        ...pod,
        httpPort,
        replicas: input.replicas ?? 1,
        ...(lease.files.length > 0 && { serviceAccountName: NAMES.monitor }),
        agentCredentials: preflight,
      }),
      [
        `Needs the Secret ${NAMES.alertSecret} (alert channels' *_env variables; may be empty),`,
        `and the runs need ${NAMES.agentSecret} (agent credentials): a missing one stops the pod.`,
        ...(preflight
          ? [
              `The monitor gets ${NAMES.agentSecret} too: it checks the agents' logins before`,
              "their slots (preflight), as no daemon runs here to do it.",
            ]
          : []),
      ],
    ),
    ...lease.files,
    ...cronJobs,
  ];
  return { kind: "ok", files, warnings };
}

/** With `[ha.kubernetes]`: the service account, Role and binding the monitor's Lease needs. */
function leaseFiles(input: KubernetesExportInput) {
  const store = input.config.leaseStore;
  if (store.kind !== "kubernetes") return { files: [], warnings: [] };
  const { refusal, warnings } = leaseProblems(store, input.namespace);
  const files = Object.entries(leaseAccess(input.namespace, store.name)).map(([name, object]) =>
    yamlFile(name, object, [
      `The monitors take turns by the Lease ${store.name} ([ha.kubernetes]); this lets them hold it.`,
    ]),
  );
  return { files, warnings, ...(refusal !== undefined && { refusal }) };
}
