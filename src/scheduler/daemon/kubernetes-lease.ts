// The lease as a Kubernetes Lease object, through the API server's REST interface (node:https:
// the official client is large and slow to load, and its current major needs a newer Node).
// Every write is conditional on the resourceVersion read: a 409 Conflict means another won.
import { existsSync, readFileSync } from "node:fs";
import { UserError } from "../../util/errors.js";
import { type HttpAnswer, httpRequest } from "../../util/http-request.js";
import { resolveSecret } from "../../util/secrets.js";
import { type LeaseStoreConfig, SERVICE_ACCOUNT_DIR } from "../config/ha.js";
import { type LeaseObject, leaseInForce, leaseObject } from "./kubernetes-lease-object.js";
import type { LeaseStore } from "./lease-store.js";

type KubernetesLease = Extract<LeaseStoreConfig, { kind: "kubernetes" }>;

const NAMESPACE_FILE = `${SERVICE_ACCOUNT_DIR}/namespace`;

/** The API server, namespace and CA, from `[ha.kubernetes]` or else the pod's own. */
export function apiAccess(config: KubernetesLease, env: NodeJS.ProcessEnv = process.env) {
  const fix = "set it in [ha.kubernetes], or run in a pod (its service account gives it)";
  let namespace = config.namespace;
  if (namespace === undefined) {
    if (!existsSync(NAMESPACE_FILE))
      throw new UserError(
        `ha.kubernetes.namespace: not set and ${NAMESPACE_FILE} is absent; ${fix}`,
      );
    namespace = readFileSync(NAMESPACE_FILE, "utf8").trim();
  }
  let base = config.apiServer;
  if (base === undefined) {
    const host = env.KUBERNETES_SERVICE_HOST;
    if (!host)
      throw new UserError(
        `ha.kubernetes.api_server: not set and KUBERNETES_SERVICE_HOST is not in the environment; ${fix}`,
      );
    const port = env.KUBERNETES_SERVICE_PORT || "443";
    base = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
  }
  const tls = base.startsWith("https:");
  if (tls && !existsSync(config.caFile))
    throw new UserError(
      `ha.kubernetes.ca_file: ${config.caFile} is absent; set ca_file to the cluster's CA certificate`,
    );
  return { base, namespace, tls, ca: tls ? readFileSync(config.caFile, "utf8") : undefined };
}

/** The service account's token, read at each request: a projected token is rotated. */
function bearer(config: KubernetesLease, tls: boolean): Record<string, string> {
  // Plain http reaches only this machine (`kubectl proxy`, which adds its own credentials).
  if (!tls && !existsSync(config.tokenFile)) return {};
  const token = resolveSecret({ kind: "file", path: config.tokenFile }, "ha.kubernetes.token_file");
  return { authorization: `Bearer ${token}` };
}

/** An answer that is neither the object nor a lost race, as an error that says what to do. */
function failure(method: string, url: string, answer: HttpAnswer, namespace: string): Error {
  let message = answer.body.slice(0, 300);
  try {
    message = (JSON.parse(answer.body) as { message?: string }).message ?? message;
  } catch {}
  const fix =
    answer.status === 403 || answer.status === 401
      ? `: the daemon's service account needs get, create and update on leases in namespace ${namespace} (the Role and RoleBinding \`autoloop-cron export kubernetes\` writes with [ha.kubernetes])`
      : "";
  return new Error(`${method} ${url}: ${answer.status} ${message}${fix}`);
}

/** The lease in the Lease `config.name` (created at the first take). */
export function kubernetesLeaseStore(
  config: KubernetesLease,
  leaseMs: number,
  env: NodeJS.ProcessEnv = process.env,
): LeaseStore {
  const api = apiAccess(config, env);
  const where = { name: config.name, namespace: api.namespace };
  const collection = `${api.base}/apis/coordination.k8s.io/v1/namespaces/${api.namespace}/leases`;
  const one = `${collection}/${config.name}`;
  const call = (method: "GET" | "POST" | "PUT", url: string, body?: LeaseObject) =>
    httpRequest(new URL(url), {
      method,
      headers: {
        accept: "application/json",
        ...(body !== undefined && { "content-type": "application/json" }),
        ...bearer(config, api.tls),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      // An API that does not answer must not hold a renewal past the next one.
      timeoutMs: Math.max(1000, Math.floor(leaseMs / 3)),
      maxBodyBytes: 1 << 16,
      ...(api.ca !== undefined && { ca: api.ca }),
    });
  /** true when written; false when another daemon wrote first (409 Conflict, AlreadyExists). */
  const write = async (method: "POST" | "PUT", object: LeaseObject) => {
    if (method === "PUT" && object.metadata.resourceVersion === undefined)
      throw new Error(`${one}: a Lease read without a resourceVersion cannot be updated safely`);
    const url = method === "POST" ? collection : one;
    const answer = await call(method, url, object);
    if (answer.status === 409) return false;
    if (answer.status === 200 || answer.status === 201) return true;
    throw failure(method, url, answer, api.namespace);
  };
  const read = async () => {
    const answer = await call("GET", one);
    if (answer.status === 404) return undefined;
    if (answer.status !== 200) throw failure("GET", one, answer, api.namespace);
    return leaseInForce(JSON.parse(answer.body) as LeaseObject);
  };
  return {
    where: `Lease ${api.namespace}/${config.name}`,
    read,
    take: (record, found) =>
      write(
        found === undefined ? "POST" : "PUT",
        leaseObject(where, leaseMs, record, found?.version),
      ),
    renew: (record, found) => write("PUT", leaseObject(where, leaseMs, record, found.version)),
    release: async (held, now) => {
      const found = await read();
      if (found?.record?.holder !== held.holder) return;
      const renewedAt = new Date(now).toISOString();
      await write("PUT", leaseObject(where, leaseMs, { ...held, renewedAt }, found.version, true));
    },
  };
}
