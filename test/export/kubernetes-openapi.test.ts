// Every object `export kubernetes` writes passes the Kubernetes OpenAPI schemas (through
// kubernetes-models' validators), in both access modes and with custom presets.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Deployment } from "kubernetes-models/apps/v1";
import { CronJob } from "kubernetes-models/batch/v1";
import { Role, RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { ConfigMap, PersistentVolumeClaim, Secret, ServiceAccount } from "kubernetes-models/v1";
import { afterEach, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { cleanupTempDirs, ROOT } from "../helpers/cli.js";
import { configDir, runExport } from "./config-fixture.js";

afterEach(cleanupTempDirs);

const MODELS: Record<string, new (o: never) => { validate(): void }> = {
  CronJob: CronJob as never,
  Deployment: Deployment as never,
  ConfigMap: ConfigMap as never,
  PersistentVolumeClaim: PersistentVolumeClaim as never,
  Secret: Secret as never,
  ServiceAccount: ServiceAccount as never,
  Role: Role as never,
  RoleBinding: RoleBinding as never,
};

function validateAll(yamlText: string): string[] {
  const kinds: string[] = [];
  for (const doc of parseAllDocuments(yamlText)) {
    const object = doc.toJS() as { kind: string };
    const Model = MODELS[object.kind];
    expect(Model, object.kind).toBeDefined();
    expect(() => new Model!(object as never).validate()).not.toThrow();
    kinds.push(object.kind);
  }
  return kinds;
}

/** The custom preset "mine" in the config folder `dir`, running claude. */
function claudePreset(dir: string): void {
  mkdirSync(join(dir, "presets", "mine"), { recursive: true });
  writeFileSync(join(dir, "presets", "mine", "autoloops.toml"), '[backend]\ncommand = "claude"\n');
}

describe("export kubernetes against the OpenAPI schemas", () => {
  it.each(["ReadWriteMany", "ReadWriteOnce"])("validates every object (%s)", async (mode) => {
    const dir = configDir(
      'state_dir = "/var/lib/autoloop-cron/state"\n[http]\nlisten = "0.0.0.0:9464"\n',
      {
        "main.toml": [
          {
            name: "nightly",
            cron: "0 2 * * *",
            extra: 'project_dir = "/var/lib/autoloop-cron/repos/app"',
          },
        ],
      },
    );
    claudePreset(dir);
    writeFileSync(
      join(dir, "schedules", "custom.toml"),
      '[[schedule]]\nname = "custom"\ncron = "30 3 * * 1-5"\npreset = "mine"\nobjective = "o"\nproject_dir = "/var/lib/autoloop-cron/repos/app"\n',
    );
    const r = await runExport(["kubernetes", "--namespace", "agents", "--access-mode", mode], dir);
    expect(r.code).toBe(0);
    expect(validateAll(r.stdout).sort()).toEqual([
      "ConfigMap",
      "CronJob",
      "CronJob",
      "Deployment",
      "PersistentVolumeClaim",
    ]);
  });

  it("validates the shipped example Secrets", () => {
    const text = readFileSync(join(ROOT, "deploy/kubernetes/secret.example.yaml"), "utf8");
    expect(validateAll(text)).toEqual(["Secret", "Secret"]);
  });
});

describe("export kubernetes --replicas", () => {
  const nightly = { "main.toml": [{ name: "nightly", cron: "0 2 * * *" }] };

  it("two monitors taking turns by [ha] lease: a valid Deployment of two replicas", async () => {
    const dir = configDir(
      'state_dir = "/var/lib/autoloop-cron/state"\n[http]\nlisten = "0.0.0.0:9464"\n[ha]\nlease = "15s"\n',
      nightly,
    );
    const r = await runExport(["kubernetes", "--replicas", "2"], dir);
    expect(r.code).toBe(0);
    validateAll(r.stdout);
    const deployment = parseAllDocuments(r.stdout)
      .map((d) => d.toJS() as { kind: string; spec: { replicas: number } })
      .find((o) => o.kind === "Deployment");
    expect(deployment?.spec.replicas).toBe(2);
  });

  it("refuses more than one replica without the lease, on a ReadWriteOnce volume, or past 5", async () => {
    const plain = configDir('state_dir = "/var/lib/autoloop-cron/state"\n', nightly);
    await expect(runExport(["kubernetes", "--replicas", "2"], plain)).rejects.toThrow(
      'has no [ha] lease, so every replica would alert; add [ha] lease = "15s" to it',
    );
    const leased = configDir(
      'state_dir = "/var/lib/autoloop-cron/state"\n[ha]\nlease = "15s"\n',
      nightly,
    );
    const once = ["kubernetes", "--replicas", "2", "--access-mode", "ReadWriteOnce"];
    await expect(runExport(once, leased)).rejects.toThrow(
      "the replicas could not all mount the volume; use ReadWriteMany",
    );
    await expect(runExport(["kubernetes", "--replicas", "9"], leased)).rejects.toThrow(
      '--replicas "9": expected a number from 1 to 5',
    );
  });
});

describe("export kubernetes with [ha.kubernetes] (monitors taking turns by a Lease object)", () => {
  const nightly = { "main.toml": [{ name: "nightly", cron: "0 2 * * *" }] };
  const config = (lease: string) =>
    `state_dir = "/var/lib/autoloop-cron/state"\n[http]\nlisten = "0.0.0.0:9464"\n[ha]\nlease = "15s"\n[ha.kubernetes]\n${lease}`;
  type Json = {
    kind: string;
    metadata: { name: string; namespace?: string };
    spec?: { replicas: number; template: { spec: { serviceAccountName?: string } } };
    rules?: Array<{ verbs: string[]; resourceNames?: string[] }>;
    subjects?: Array<{ name: string; namespace?: string }>;
    roleRef?: { name: string };
  };

  it("writes a valid ServiceAccount, Role and RoleBinding, and the monitor runs as that account", async () => {
    const dir = configDir(config('name = "cron"\n'), nightly);
    const r = await runExport(["kubernetes", "--replicas", "2", "--namespace", "agents"], dir);
    expect(r.code).toBe(0);
    expect(validateAll(r.stdout).sort()).toEqual([
      "ConfigMap",
      "CronJob",
      "Deployment",
      "PersistentVolumeClaim",
      "Role",
      "RoleBinding",
      "ServiceAccount",
    ]);
    const objects = parseAllDocuments(r.stdout).map((d) => d.toJS() as Json);
    const of = (kind: string) => objects.find((o) => o.kind === kind)!;
    const account = of("ServiceAccount").metadata;
    expect(account.namespace).toBe("agents");
    const pod = of("Deployment").spec!;
    expect(pod.replicas).toBe(2);
    expect(pod.template.spec.serviceAccountName).toBe(account.name);
    expect(of("Role").rules).toEqual([
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
      {
        apiGroups: ["coordination.k8s.io"],
        resources: ["leases"],
        resourceNames: ["cron"],
        verbs: ["get", "update"],
      },
    ]);
    const binding = of("RoleBinding");
    expect(binding.roleRef?.name).toBe(of("Role").metadata.name);
    expect(binding.subjects).toEqual([
      { kind: "ServiceAccount", name: account.name, namespace: "agents" },
    ]);
    // The CronJobs' runs keep the namespace's default account: no hold on the Lease.
    expect(r.stdout.match(/serviceAccountName/g)).toHaveLength(1);
  });

  it("refuses a Lease in another namespace than the export's, and warns of outside settings", async () => {
    const elsewhere = configDir(config('namespace = "ops"\n'), nightly);
    await expect(runExport(["kubernetes", "--namespace", "agents"], elsewhere)).rejects.toThrow(
      "[ha.kubernetes] namespace is ops but --namespace is agents: the Role would not reach the Lease; export with --namespace ops",
    );
    const outside = configDir(config('api_server = "http://127.0.0.1:8001"\n'), nightly);
    const r = await runExport(["kubernetes"], outside);
    expect(r.stderr).toContain(
      "warning: [ha.kubernetes] api_server is http://127.0.0.1:8001: in the cluster, leave it",
    );
  });
});

describe("export kubernetes with `preflight` (the monitor checks the agents' logins)", () => {
  type Json = {
    kind: string;
    spec: { template: { spec: { containers: Array<{ envFrom: unknown[] }> } } };
  };
  const monitorEnvFrom = (yamlText: string) =>
    parseAllDocuments(yamlText)
      .map((d) => d.toJS() as Json)
      .find((o) => o.kind === "Deployment")!.spec.template.spec.containers[0]!.envFrom;
  const secret = (name: string) => ({ secretRef: { name, optional: false } });

  it("gives the monitor the agents' credentials only when a schedule sets preflight", async () => {
    const config = 'state_dir = "/var/lib/autoloop-cron/state"\n[http]\nlisten = "0.0.0.0:9464"\n';
    const dir = configDir(config, {});
    claudePreset(dir);
    const schedule = (extra: string) =>
      `[[schedule]]\nname = "nightly"\ncron = "0 3 * * *"\npreset = "mine"\nobjective = "o"\nproject_dir = "/var/lib/autoloop-cron/repos/app"\n${extra}`;
    writeFileSync(join(dir, "schedules", "main.toml"), schedule(""));
    const without = await runExport(["kubernetes"], dir);
    expect(monitorEnvFrom(without.stdout)).toEqual([secret("autoloop-cron-alert-secrets")]);
    writeFileSync(join(dir, "schedules", "main.toml"), schedule('preflight = "30m"\n'));
    const r = await runExport(["kubernetes"], dir);
    expect(r.code).toBe(0);
    expect(validateAll(r.stdout)).toContain("Deployment"); // every object valid, this one too
    expect(monitorEnvFrom(r.stdout)).toEqual([
      secret("autoloop-cron-alert-secrets"),
      secret("autoloop-cron-agent-secrets"),
    ]);
  });
});
