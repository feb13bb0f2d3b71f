// The one HTTP client for outgoing requests (alert webhooks, heartbeat pings): node:http(s),
// which never follows redirects, with a deadline and an abort signal. Not fetch: Node's
// fetch compiles its HTTP parser (WebAssembly) on first use, which delays the first alert
// after every start; node:http's first request costs less.
import { type IncomingHttpHeaders, request as plainRequest } from "node:http";
import { request as tlsRequest } from "node:https";

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The start of the answer's body (enough to quote in an error), the rest read and dropped. */
  body: string;
}

export interface HttpRequestOptions {
  method: "GET" | "POST" | "PATCH" | "PUT";
  headers?: Record<string, string>;
  body?: string;
  /** The whole exchange's deadline; past it the request fails with a `TimeoutError`. */
  timeoutMs: number;
  /** How much of the answer's body to keep (default: enough to quote in an error). */
  maxBodyBytes?: number;
  /** Aborting fails the request with the signal's reason (an `AbortError` by default). */
  signal?: AbortSignal;
  /** https: the certificates to trust instead of the system's (a cluster's own CA). */
  ca?: string;
}

const BODY_KEPT = 1000;

export function httpRequest(url: URL, options: HttpRequestOptions): Promise<HttpAnswer> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const kept = options.maxBodyBytes ?? BODY_KEPT;
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  return new Promise((resolve, reject) => {
    // An abort surfaces as the signal's reason, so callers tell a deadline from a stop.
    const fail = (err: unknown) => reject(signal.aborted ? signal.reason : err);
    const send = url.protocol === "https:" ? tlsRequest : plainRequest;
    const headers = { ...options.headers };
    if (options.body !== undefined)
      headers["content-length"] = String(Buffer.byteLength(options.body));
    const tls = options.ca === undefined ? {} : { ca: options.ca };
    const req = send(url, { method: options.method, headers, signal, ...tls }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (text.length < kept) text += chunk;
      });
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: text.slice(0, kept),
        }),
      );
      res.on("error", fail);
    });
    req.on("error", fail);
    req.end(options.body);
  });
}
