import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { cleanupTempDirs } from "../helpers/cli.js";
import { configDir, runExport } from "./config-fixture.js";

afterEach(cleanupTempDirs);

const CONFIG = `state_dir = "/var/lib/autoloop-cron/state"
[http]
listen = "0.0.0.0:9464"
[defaults]
timezone = "Europe/Berlin"
`;
const project = 'project_dir = "/var/lib/autoloop-cron/repos/app"';

function fixture() {
  return configDir(CONFIG, {
    "main.toml": [
      { name: "nightly", cron: "0 2 * * *", extra: `${project}\ntimeout = "45m"` },
      {
        name: "queued",
        cron: "*/30 * * * *",
        extra: `${project}\noverlap = "queue"\ncatch_up = "latest"\ncatch_up_window = "2h"\ntimezone = "America/New_York"`,
      },
      {
        name: "eager",
        cron: "@hourly",
        extra: `${project}\noverlap = "replace"\ncatch_up = "none"`,
      },
      { name: "off", cron: "0 3 * * *", extra: `${project}\nenabled = false` },
    ],
  });
}

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML, checked field by field below
type Obj = Record<string, any>;
const objects = (yamlText: string): Obj[] =>
  parseAllDocuments(yamlText).map((d) => {
    expect(d.errors).toEqual([]);
    return d.toJS() as Obj;
  });

describe("export kubernetes", () => {
  it("prints a CronJob per enabled schedule, the monitor, the claim and the ConfigMap", async () => {
    const dir = fixture();
    const r = await runExport(
      ["kubernetes", "--image", "reg.example/autoloop-cron:1", "--namespace", "agents"],
      dir,
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('note: schedule "off" is disabled; left out');
    expect(r.stderr).toContain('warning: schedule "queued": overlap = "queue" becomes Forbid');
    const all = objects(r.stdout);
    expect(all.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      "PersistentVolumeClaim/autoloop-cron-data",
      "ConfigMap/autoloop-cron-config",
      "Deployment/autoloop-cron-monitor",
      "CronJob/nightly",
      "CronJob/queued",
      "CronJob/eager",
    ]);
    for (const o of all) expect(o.metadata.namespace).toBe("agents");
    const [pvc, cm, deploy, nightly, queued, eager] = all as [Obj, Obj, Obj, Obj, Obj, Obj];

    expect(pvc.spec).toEqual({
      accessModes: ["ReadWriteMany"],
      resources: { requests: { storage: "10Gi" } },
    });
    expect(Object.keys(cm.data)).toEqual(["autoloop-cron.toml", "schedules_main.toml"]);
    expect(cm.data["autoloop-cron.toml"]).toBe(CONFIG);

    expect(nightly.apiVersion).toBe("batch/v1");
    expect(nightly.metadata.labels).toMatchObject({
      "app.kubernetes.io/name": "autoloop-cron",
      "autoloop-cron/schedule": "nightly",
    });
    expect(nightly.spec).toMatchObject({
      schedule: "0 2 * * *",
      timeZone: "Europe/Berlin",
      concurrencyPolicy: "Forbid",
      startingDeadlineSeconds: 21600,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 5,
    });
    const job = nightly.spec.jobTemplate.spec;
    expect(job.backoffLimit).toBe(0);
    expect(job.activeDeadlineSeconds).toBe(45 * 60 + 60);
    const pod = job.template.spec;
    expect(pod.restartPolicy).toBe("Never");
    const [container] = pod.containers;
    expect(container.image).toBe("reg.example/autoloop-cron:1");
    expect(container.args).toEqual([
      "autoloop-cron",
      "fire",
      "--foreground",
      "nightly",
      "--config",
      "/etc/autoloop-cron/autoloop-cron.toml",
    ]);
    // Runs get the agents' credentials only; a missing Secret stops the pod at once.
    expect(container.envFrom).toEqual([
      { secretRef: { name: "autoloop-cron-agent-secrets", optional: false } },
    ]);
    expect(pod.affinity).toBeUndefined();
    expect(container.volumeMounts.map((m: Obj) => m.mountPath)).toEqual([
      "/etc/autoloop-cron",
      "/var/lib/autoloop-cron",
      "/tmp",
    ]);
    expect(pod.volumes[0].configMap.items).toEqual([
      { key: "autoloop-cron.toml", path: "autoloop-cron.toml" },
      { key: "schedules_main.toml", path: "schedules/main.toml" },
    ]);
    expect(pod.volumes[1]).toEqual({
      name: "data",
      persistentVolumeClaim: { claimName: "autoloop-cron-data" },
    });

    expect(queued.spec).toMatchObject({
      schedule: "*/30 * * * *",
      timeZone: "America/New_York",
      concurrencyPolicy: "Forbid",
      startingDeadlineSeconds: 7200,
    });
    expect(queued.metadata.annotations["autoloop-cron/overlap"]).toContain("no queue");
    expect(r.stdout).toContain('# overlap = "queue": Kubernetes has no queue');
    expect(eager.spec).toMatchObject({
      schedule: "@hourly",
      concurrencyPolicy: "Replace",
      startingDeadlineSeconds: 60,
    });

    expect(deploy.spec.replicas).toBe(1);
    expect(deploy.spec.strategy).toEqual({ type: "Recreate" });
    const monitor = deploy.spec.template.spec.containers[0];
    expect(monitor.args).toEqual([
      "autoloop-cron",
      "monitor",
      "--config",
      "/etc/autoloop-cron/autoloop-cron.toml",
    ]);
    expect(monitor.ports).toEqual([{ name: "http", containerPort: 9464 }]);
    // The monitor sends the alerts: the channels' secrets are its alone.
    expect(monitor.envFrom).toEqual([
      { secretRef: { name: "autoloop-cron-alert-secrets", optional: false } },
    ]);
    expect(monitor.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(monitor.readinessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(deploy.spec.selector.matchLabels).toEqual(deploy.spec.template.metadata.labels);
  });

  it("pins every run to the monitor's node with --access-mode ReadWriteOnce", async () => {
    const r = await runExport(["kubernetes", "--access-mode", "ReadWriteOnce"], fixture());
    expect(r.code).toBe(0);
    const all = objects(r.stdout);
    expect(all[0]!.spec.accessModes).toEqual(["ReadWriteOnce"]);
    const job = all.find((o) => o.kind === "CronJob")!;
    expect(job.spec.jobTemplate.spec.template.spec.affinity).toEqual({
      podAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            labelSelector: {
              matchLabels: {
                "app.kubernetes.io/name": "autoloop-cron",
                "app.kubernetes.io/component": "monitor",
              },
            },
            topologyKey: "kubernetes.io/hostname",
          },
        ],
      },
    });
    await expect(runExport(["kubernetes", "--access-mode", "RWX"], fixture())).rejects.toThrow(
      '--access-mode "RWX": expected ReadWriteMany',
    );
  });

  it("carries the custom presets the schedules use in the ConfigMap", async () => {
    const dir = fixture();
    mkdirSync(join(dir, "presets", "mine", "roles"), { recursive: true });
    writeFileSync(
      join(dir, "presets", "mine", "autoloops.toml"),
      '[backend]\ncommand = "claude"\n',
    );
    writeFileSync(join(dir, "presets", "mine", "roles", "fixer.md"), "Fix it.\n");
    appendFileSync(
      join(dir, "schedules", "main.toml"),
      '\n[[schedule]]\nname = "custom"\ncron = "0 4 * * *"\npreset = "mine"\nobjective = "o"\nproject_dir = "/var/lib/autoloop-cron/repos/app"\n',
    );
    const r = await runExport(["kubernetes"], dir);
    expect(r.code).toBe(0);
    const cm = objects(r.stdout).find((o) => o.kind === "ConfigMap")!;
    expect(cm.data["presets_mine_autoloops.toml"]).toBe('[backend]\ncommand = "claude"\n');
    expect(cm.data["presets_mine_roles_fixer.md"]).toBe("Fix it.\n");
    const job = objects(r.stdout).find((o) => o.metadata.name === "custom")!;
    expect(job.spec.jobTemplate.spec.template.spec.volumes[0].configMap.items).toContainEqual({
      key: "presets_mine_roles_fixer.md",
      path: "presets/mine/roles/fixer.md",
    });
  });

  it("writes one file per object with --out and --storage", async () => {
    const dir = fixture();
    const r = await runExport(["kubernetes", "--out", "k8s", "--storage", "50Gi"], dir);
    expect(r.code).toBe(0);
    expect(readdirSync(join(dir, "k8s")).sort()).toEqual([
      "configmap.yaml",
      "cronjob-eager.yaml",
      "cronjob-nightly.yaml",
      "cronjob-queued.yaml",
      "deployment-monitor.yaml",
      "pvc.yaml",
    ]);
    expect(r.stdout).toContain(`wrote ${join(dir, "k8s", "pvc.yaml")}`);
    const [pvc] = objects(readFileSync(join(dir, "k8s", "pvc.yaml"), "utf8"));
    expect(pvc!.spec.resources.requests.storage).toBe("50Gi");
    expect(pvc!.metadata.namespace).toBeUndefined();
  });

  it("warns about paths off the volume and a loopback health endpoint", async () => {
    const dir = configDir("", { "a.toml": [{ name: "a", cron: "0 2 * * *" }] });
    const r = await runExport(["kubernetes"], dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `warning: state_dir is ${join(dir, ".autoloop-cron")}, not on the persistent volume`,
    );
    expect(r.stderr).toContain(
      'warning: schedule "a": project_dir is the config folder, not on the persistent volume',
    );
    expect(r.stderr).toContain(
      'warning: [http] listen is 127.0.0.1:9464: kubelet probes connect to the pod\'s IP, so set listen = "0.0.0.0:9464"',
    );
  });

  it("refuses a seconds field, naming the schedule, and writes nothing", async () => {
    const dir = configDir(CONFIG, {
      "a.toml": [
        { name: "fine", cron: "0 2 * * *" },
        { name: "fast", cron: "*/30 * * * * *" },
      ],
    });
    await expect(runExport(["kubernetes", "--out", "k8s"], dir)).rejects.toThrow(
      'nothing exported:\nschedules/a.toml: schedule "fast": cron "*/30 * * * * *" cannot be exported to a Kubernetes CronJob schedule: Kubernetes schedules have no seconds field, so the seconds field "*/30" must be 0\n(change these schedules, or set enabled = false on them to export the others)',
    );
    expect(readdirSync(dir)).not.toContain("k8s");
  });
});
