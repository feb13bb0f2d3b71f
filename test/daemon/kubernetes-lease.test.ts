// The lease as a Kubernetes Lease object: its mapping both ways (pure), the store against a
// loopback API server (one winner of a 409 race, the token sent, a refusal that names the fix),
// and `[ha.kubernetes]` in the config.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/scheduler/config/config.js";
import type { LeaseStoreConfig } from "../../src/scheduler/config/ha.js";
import { kubernetesLeaseStore } from "../../src/scheduler/daemon/kubernetes-lease.js";
import {
  leaseInForce,
  leaseObject,
  microTime,
} from "../../src/scheduler/daemon/kubernetes-lease-object.js";
import { type LeaseRecord, leaseStep } from "../../src/scheduler/daemon/lease.js";
import { LeaseKeeper } from "../../src/scheduler/daemon/lease-keeper.js";
import { formatProblem } from "../../src/util/errors.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { capturingLogger } from "../helpers/daemon.js";
import { FakeKubernetes } from "../helpers/fake-kubernetes.js";
import { waitFor } from "../helpers/wait.js";

const T0 = Date.parse("2026-11-29T02:00:00Z");
const record = (holder: string, at: number, generation = 1): LeaseRecord => ({
  v: 1,
  generation,
  holder,
  acquiredAt: new Date(at).toISOString(),
  renewedAt: new Date(at).toISOString(),
  expiresAt: new Date(at + 15_000).toISOString(),
});
const where = { name: "autoloop-cron", namespace: "agents" };

describe("a Lease object and the lease record", () => {
  it("says the same both ways: generation as leaseTransitions + 1, expiry as renewTime + duration", () => {
    const object = leaseObject(where, 15_000, record("a", T0, 3), "41");
    expect(object.spec).toEqual({
      holderIdentity: "a",
      leaseDurationSeconds: 15,
      acquireTime: "2026-11-29T02:00:00.000000Z",
      renewTime: "2026-11-29T02:00:00.000000Z",
      leaseTransitions: 2,
    });
    expect(leaseInForce(object)).toEqual({
      generation: 3,
      version: "41",
      record: record("a", T0, 3),
    });
    expect(microTime("2026-11-29T02:00:00.123Z")).toBe("2026-11-29T02:00:00.123000Z");
  });

  it("a Lease naming this daemon that it does not hold (a take whose answer was lost) is taken again", () => {
    const mine = leaseInForce(leaseObject(where, 15_000, record("a", T0, 2), "9"));
    expect(leaseStep(mine, "a", false, T0 + 1000, 0)).toEqual({ kind: "take", generation: 3 });
    expect(leaseStep(mine, "b", false, T0 + 1000, 0).kind).toBe("wait");
  });

  it("a released Lease, or one with no holder or times, reads as lapsed", () => {
    const released = leaseObject(where, 15_000, record("a", T0, 2), "7", true);
    expect(released.spec.holderIdentity).toBeUndefined();
    expect(leaseInForce(released)).toEqual({ generation: 2, version: "7", record: undefined });
    const bare = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: where, spec: {} };
    expect(leaseInForce(bare as never)).toEqual({ generation: 1, record: undefined });
  });
});

describe("the Lease store against a loopback API server", () => {
  let api: FakeKubernetes;
  let dir: string;
  beforeEach(async () => {
    api = await new FakeKubernetes().start();
    dir = tempDir();
    writeFileSync(join(dir, "token"), "sa-token-123456\n");
  });
  afterEach(async () => {
    await api.stop();
    cleanupTempDirs();
  });
  const config = (): Extract<LeaseStoreConfig, { kind: "kubernetes" }> => ({
    kind: "kubernetes",
    ...where,
    apiServer: api.url,
    tokenFile: join(dir, "token"),
    caFile: join(dir, "absent-ca.crt"),
  });

  it("creates the Lease at the first take; of two takers of one lapsed version, one wins (409)", async () => {
    api.token = "sa-token-123456";
    const [a, b] = [kubernetesLeaseStore(config(), 15_000), kubernetesLeaseStore(config(), 15_000)];
    expect(await a.read()).toBeUndefined();
    expect(await a.take(record("a", T0), undefined)).toBe(true);
    expect(await b.take(record("b", T0), undefined)).toBe(false); // AlreadyExists
    const lapsed = await a.read();
    const seenByB = await b.read();
    expect(await b.take(record("b", T0 + 20_000, 2), seenByB)).toBe(true);
    expect(await a.take(record("a", T0 + 20_000, 2), lapsed)).toBe(false); // Conflict
    expect(api.spec("agents", "autoloop-cron")).toMatchObject({
      holderIdentity: "b",
      leaseTransitions: 1,
    });
    // The old holder's renewal over what it read is refused too.
    expect(await a.renew(record("a", T0 + 21_000), lapsed!)).toBe(false);
    expect(api.requests.every((r) => r.authorization === "Bearer sa-token-123456")).toBe(true);
    expect(api.problems).toEqual([]);
  });

  it("a release leaves the Lease with no holder, and a refusal names the Role to apply", async () => {
    const store = kubernetesLeaseStore(config(), 15_000);
    expect(await store.take(record("a", T0), undefined)).toBe(true);
    await store.release(record("a", T0), T0 + 1000);
    expect(api.spec("agents", "autoloop-cron")?.holderIdentity).toBeUndefined();
    expect((await store.read())?.record).toBeUndefined();
    api.token = "another-token";
    await expect(store.read()).rejects.toThrow(
      "401 Unauthorized: the daemon's service account needs get, create and update on leases in namespace agents",
    );
    expect(api.problems).toEqual([]);
  });

  it("a keeper whose Lease another daemon took says so at its next renewal", async () => {
    const { logger } = capturingLogger();
    const store = kubernetesLeaseStore(config(), 3000);
    const keeper = new LeaseKeeper(dir, 3000, { logger, holder: "a", store });
    expect(await keeper.acquire(new Promise(() => {}))).toBe(true);
    const lost: string[] = [];
    keeper.keep((reason) => lost.push(reason));
    try {
      const other = kubernetesLeaseStore(config(), 3000);
      expect(await other.take(record("b", Date.now(), 2), await other.read())).toBe(true);
      await waitFor(() => lost.length > 0, "the loss", 5000);
      expect(lost[0]).toMatch(/taken by b|another daemon wrote the lease/);
    } finally {
      keeper.stop();
    }
  });
});

/** A key and a self-signed certificate for 127.0.0.1, as a cluster's CA and API server. */
function selfSigned(key: string, cert: string): void {
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ...["-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"],
      ...["-addext", "subjectAltName=IP:127.0.0.1"],
    ],
    { stdio: "ignore" },
  );
}

describe("the Lease store with a pod's defaults", () => {
  afterEach(cleanupTempDirs);

  it("reaches https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT trusting the CA file only", async () => {
    const dir = tempDir();
    const [key, cert] = [join(dir, "key.pem"), join(dir, "ca.crt")];
    selfSigned(key, cert);
    writeFileSync(join(dir, "token"), "sa-token-123456\n");
    const api = await new FakeKubernetes({
      key: readFileSync(key, "utf8"),
      cert: readFileSync(cert, "utf8"),
    }).start();
    try {
      const env = {
        KUBERNETES_SERVICE_HOST: "127.0.0.1",
        KUBERNETES_SERVICE_PORT: new URL(api.url).port,
      };
      const pod = {
        kind: "kubernetes" as const,
        ...where,
        apiServer: undefined,
        tokenFile: join(dir, "token"),
        caFile: cert,
      };
      const store = kubernetesLeaseStore(pod, 15_000, env);
      expect(await store.take(record("a", T0), await store.read())).toBe(true);
      expect(api.spec("agents", "autoloop-cron")?.holderIdentity).toBe("a");
      expect(api.requests.map((r) => r.authorization)).toEqual([
        "Bearer sa-token-123456",
        "Bearer sa-token-123456",
      ]);
      // Another CA: the server is not trusted.
      const other = join(dir, "other.crt");
      selfSigned(join(dir, "other.key"), other);
      const untrusting = kubernetesLeaseStore({ ...pod, caFile: other }, 15_000, env);
      await expect(untrusting.read()).rejects.toThrow(/self[- ]signed|unable to verify/);
      expect(() =>
        kubernetesLeaseStore({ ...pod, caFile: join(dir, "absent.crt") }, 15_000, env),
      ).toThrow("ha.kubernetes.ca_file: " + join(dir, "absent.crt") + " is absent");
      expect(() => kubernetesLeaseStore(pod, 15_000, {})).toThrow(
        "ha.kubernetes.api_server: not set and KUBERNETES_SERVICE_HOST is not in the environment",
      );
    } finally {
      await api.stop();
    }
  });
});

describe("[ha.kubernetes] in autoloop-cron.toml", () => {
  const parse = (text: string) => parseConfigText("autoloop-cron.toml", text, "/srv/cron");

  it("names the Lease; the files stay the default", () => {
    expect(parse('[ha]\nlease = "15s"\n').config?.leaseStore).toEqual({ kind: "files" });
    expect(parse('[ha]\nlease = "15s"\n[ha.kubernetes]\n').config?.leaseStore).toEqual({
      kind: "kubernetes",
      name: "autoloop-cron",
      namespace: undefined,
      apiServer: undefined,
      tokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token",
      caFile: "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt",
    });
  });

  it("refuses it without a lease, with a lease in part seconds, or plain http off loopback", () => {
    const problems = (text: string) => parse(text).problems.map(formatProblem);
    expect(problems('[ha.kubernetes]\nname = "x"\n')).toEqual([
      'autoloop-cron.toml: ha.kubernetes: found a Lease object but no ha.lease; expected lease = "15s" in [ha] beside it',
    ]);
    expect(problems('[ha]\nlease = "1500ms"\n[ha.kubernetes]\n')).toEqual([
      'autoloop-cron.toml: ha.lease: found 1500ms; expected whole seconds with [ha.kubernetes] (a Lease counts leaseDurationSeconds), such as "15s"',
    ]);
    expect(
      problems('[ha]\nlease = "15s"\n[ha.kubernetes]\napi_server = "http://10.0.0.1:8001"\n'),
    ).toEqual([
      'autoloop-cron.toml: ha.kubernetes.api_server: found "http://10.0.0.1:8001"; expected an https:// address (http:// only on loopback, where `kubectl proxy` serves)',
    ]);
    expect(problems('[ha]\nlease = "15s"\n[ha.kubernetes]\nname = "Not_A_Name"\n')).toHaveLength(1);
  });
});
