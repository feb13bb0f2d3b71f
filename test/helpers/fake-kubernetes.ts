// A loopback Kubernetes API server for Lease objects (coordination.k8s.io/v1): GET, POST and
// PUT with resourceVersion semantics (a stale PUT is a 409 Conflict), every body checked against
// the Kubernetes OpenAPI schema (kubernetes-models' Lease) and MicroTime as the server parses it.
import { createServer, type IncomingMessage, Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import { Lease } from "kubernetes-models/coordination.k8s.io/v1";
import { closeLoopback, listenLoopback, requestText } from "./loopback.js";

type Json = Record<string, unknown>;
type LeaseJson = { metadata: Json & { name: string }; spec?: Json };

const PATH = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases(?:\/([^/]+))?$/;
/** RFC 3339 to the microsecond: what the API server's MicroTime accepts. */
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}(Z|[+-]\d\d:\d\d)$/;

export class FakeKubernetes {
  readonly leases = new Map<string, LeaseJson>();
  /** Requests and answers that would not pass the real API server: [] in a passing test. */
  readonly problems: string[] = [];
  readonly requests: Array<{ method: string; path: string; authorization?: string }> = [];
  /** When set, a request without `Bearer <token>` is refused with 401. */
  token: string | undefined;
  /** The status of every answer, in order. */
  readonly statuses: number[] = [];
  /** Writes held until this many arrived (a race made certain); 0: none held. */
  private gateSize = 0;
  private readonly held: Array<() => void> = [];
  private version = 100;
  private readonly server: Server;
  url = "";

  /** Plain http, or https with `tls` (a key and certificate in PEM, as a cluster's). */
  constructor(tls?: { key: string; cert: string }) {
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    this.server = tls === undefined ? createServer(handler) : createTlsServer(tls, handler);
  }

  async start(): Promise<this> {
    const url = await listenLoopback(this.server);
    this.url = this.server instanceof Server ? url : url.replace(/^http:/, "https:");
    return this;
  }

  /** Closes the server: the API becomes unreachable (connections refused). */
  stop(): Promise<void> {
    return closeLoopback(this.server);
  }

  /** The Lease's spec, as stored. */
  spec(namespace: string, name: string): Json | undefined {
    return this.leases.get(`${namespace}/${name}`)?.spec;
  }

  private check(what: string, body: unknown): void {
    try {
      new Lease(body as never).validate();
    } catch (err) {
      this.problems.push(`${what}: ${String(err)}`);
    }
    const spec = (body as LeaseJson).spec ?? {};
    for (const key of ["acquireTime", "renewTime"])
      if (spec[key] !== undefined && !MICRO_TIME.test(String(spec[key])))
        this.problems.push(`${what}: spec.${key} ${String(spec[key])} is not a MicroTime`);
  }

  /** Holds the next `n` writes (POST, PUT) until all have arrived, then applies them in order. */
  race(n: number): void {
    this.gateSize = n;
  }

  private async gate(method: string): Promise<void> {
    if (this.gateSize === 0 || (method !== "POST" && method !== "PUT")) return;
    const turn = new Promise<void>((resolve) => this.held.push(resolve));
    if (this.held.length >= this.gateSize) {
      this.gateSize = 0;
      for (const release of this.held.splice(0)) release();
    }
    await turn;
  }

  private answer(res: ServerResponse, status: number, body: Json): void {
    if (body.kind === "Lease") this.check(`${status} answer`, body);
    this.statuses.push(status);
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  }

  private status(res: ServerResponse, code: number, reason: string, message: string): void {
    const body = { kind: "Status", apiVersion: "v1", status: "Failure", message, reason, code };
    this.answer(res, code, body);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await requestText(req);
    const { method = "", url = "" } = req;
    this.requests.push({ method, path: url, authorization: req.headers.authorization });
    const m = PATH.exec(url);
    if (m === null) return this.status(res, 404, "NotFound", `no route ${url}`);
    if (this.token !== undefined && req.headers.authorization !== `Bearer ${this.token}`)
      return this.status(res, 401, "Unauthorized", "Unauthorized");
    const [, namespace, name] = m;
    const body = text === "" ? undefined : (JSON.parse(text) as LeaseJson);
    if (body !== undefined) this.check(`${method} ${url} body`, body);
    await this.gate(method);
    const key = `${namespace}/${name ?? body?.metadata.name}`;
    const stored = this.leases.get(key);
    if (method === "GET" && name !== undefined) {
      if (stored === undefined)
        return this.status(res, 404, "NotFound", `lease "${name}" not found`);
      return this.answer(res, 200, stored);
    }
    if (body === undefined || body.metadata.namespace !== namespace)
      return this.status(res, 400, "BadRequest", "the body's namespace does not match the path");
    if (method === "POST" && name === undefined) {
      if (stored !== undefined)
        return this.status(
          res,
          409,
          "AlreadyExists",
          `leases "${body.metadata.name}" already exists`,
        );
      return this.answer(res, 201, this.store(key, body));
    }
    if (method === "PUT" && name !== undefined && body.metadata.name === name) {
      if (stored === undefined)
        return this.status(res, 404, "NotFound", `lease "${name}" not found`);
      if (body.metadata.resourceVersion !== stored.metadata.resourceVersion)
        return this.status(
          res,
          409,
          "Conflict",
          `Operation cannot be fulfilled on leases.coordination.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        );
      return this.answer(res, 200, this.store(key, body));
    }
    return this.status(res, 405, "MethodNotAllowed", `${method} ${url}`);
  }

  private store(key: string, body: LeaseJson): LeaseJson {
    this.version += 1;
    const previous = this.leases.get(key)?.metadata;
    const stored: LeaseJson = {
      ...body,
      metadata: {
        ...body.metadata,
        resourceVersion: String(this.version),
        uid: (previous?.uid as string | undefined) ?? `uid-${this.version}`,
        creationTimestamp:
          (previous?.creationTimestamp as string | undefined) ??
          new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      },
    };
    this.leases.set(key, stored);
    return stored;
  }
}
