// A hook request's body, read only when it could be a delivery: its signature headers are
// there, its declared length is within the hook's `max_bytes`, the bytes all hook requests
// hold at once leave room for it, and it arrives within a deadline. Anything else is answered
// before its body is read (and its connection closed), so requests made without the secret
// cannot swell the daemon's memory or hold its sockets.
import type { IncomingMessage } from "node:http";
import type { HookSpec } from "../scheduler/schedules/schedule.js";

/** The body bytes all hook requests may hold at once; one body alone may be larger (5 MiB). */
export const BODY_BYTES_IN_FLIGHT = 4 << 20;
/** A body must arrive this soon after its headers: a slow sender holds the budget briefly. */
export const BODY_DEADLINE_MS = 5_000;

/** The headers a request needs before its body is read, by the hook's format. */
const SIGNATURE_HEADERS: Record<HookSpec["format"], readonly string[]> = {
  standard: ["webhook-id", "webhook-timestamp", "webhook-signature"],
  github: ["x-hub-signature-256"],
};

export type BodyRead =
  | { kind: "body"; body: Buffer }
  /** Answered without the body: the connection is closed after the answer. */
  | { kind: "refused"; status: number; error: string; headers?: Record<string, string> };

/** A reader of hook bodies sharing one in-flight budget (one per HTTP server). */
export function hookBodyReader(
  budget = BODY_BYTES_IN_FLIGHT,
  deadlineMs = BODY_DEADLINE_MS,
): (req: IncomingMessage, spec: HookSpec) => Promise<BodyRead> {
  let inFlight = 0;
  return async (req, spec) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > spec.maxBytes) return tooLarge(spec);
    const missing = SIGNATURE_HEADERS[spec.format].filter((h) => req.headers[h] === undefined);
    if (missing.length > 0)
      return refused(401, `no ${missing.join(", ")} header: the request is not signed`);
    // A body of unknown length (chunked) may take all of max_bytes.
    const reserved = Number.isFinite(declared) && declared > 0 ? declared : spec.maxBytes;
    if (inFlight > 0 && inFlight + reserved > budget)
      return refused(503, "too many hook requests at once; try again shortly", {
        "Retry-After": "5",
      });
    inFlight += reserved;
    try {
      const read = await readWithin(req, spec.maxBytes, deadlineMs);
      if (read === "too_large") return tooLarge(spec);
      if (read === "late")
        return refused(408, `the body did not arrive within ${deadlineMs / 1000} seconds`);
      return { kind: "body", body: read };
    } finally {
      inFlight -= reserved;
    }
  };
}

function refused(status: number, error: string, headers: Record<string, string> = {}): BodyRead {
  return { kind: "refused", status, error, headers: { ...headers, Connection: "close" } };
}

function tooLarge(spec: HookSpec): BodyRead {
  return refused(413, `a body of at most ${spec.maxBytes} bytes`);
}

/**
 * The body, or "too_large" as soon as it passes `max` bytes, or "late" when it has not ended
 * within `ms` (or the sender went away first). It always settles, so the budget is given back.
 */
function readWithin(
  req: IncomingMessage,
  max: number,
  ms: number,
): Promise<Buffer | "too_large" | "late"> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: Buffer | "too_large" | "late") => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      chunks.length = 0;
      resolve(result);
    };
    const timer = setTimeout(() => settle("late"), ms);
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > max) settle("too_large");
      else chunks.push(chunk);
    });
    req.on("end", () => settle(Buffer.concat(chunks)));
    req.on("error", () => settle("late"));
    req.on("close", () => settle("late"));
  });
}
