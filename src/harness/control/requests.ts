// A run's control files, as the public autoloop lays them out (docs/formats.md, "Control"):
// `<run state dir>/control/requests.jsonl` (operators' requests: respond, guide, interrupt),
// `status.jsonl` (the run's acks) and `capabilities.json` (what the run can do). Requests are
// compact JSON, camelCase, one per line; `by` (who asked, from where) is our extension.
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { appendLineOnce } from "../../journal/append.js";
import { LineCursor } from "../../journal/reader.js";
import { writeFileAtomic } from "../../util/atomic-write.js";

export const CONTROL_VERBS = ["respond", "guide", "interrupt"] as const;
export type ControlVerb = (typeof CONTROL_VERBS)[number];

export interface ControlRequest {
  id: string;
  runId: string;
  requestedAt: string;
  verb: ControlVerb;
  reason: string;
  payload: Record<string, unknown>;
  /** Who sent it and through what ("cli:alice@host", "page", "mcp"): our extension. */
  by?: string;
}

export interface ControlStatus {
  id: string;
  runId: string;
  verb: ControlVerb;
  state: "received" | "applied" | "rejected" | "ignored";
  at: string;
  detail?: string;
}

export interface ControlPaths {
  dir: string;
  requests: string;
  status: string;
  capabilities: string;
}

/** The control files of a run whose state dir is `stateDir`. */
export function controlPaths(stateDir: string): ControlPaths {
  const dir = join(stateDir, "control");
  return {
    dir,
    requests: join(dir, "requests.jsonl"),
    status: join(dir, "status.jsonl"),
    capabilities: join(dir, "capabilities.json"),
  };
}

/** `ctl_<time in base 36>_<6 random characters>`, as the public autoloop names requests. */
export function newRequestId(now = Date.now()): string {
  const random = randomBytes(6)
    .toString("base64url")
    .replace(/[^a-z0-9]/gi, "x")
    .toLowerCase()
    .slice(0, 6);
  return `ctl_${now.toString(36)}_${random}`;
}

export function buildRequest(
  runId: string,
  verb: ControlVerb,
  reason: string,
  payload: Record<string, unknown>,
  by?: string,
  now = new Date(),
): ControlRequest {
  return {
    id: newRequestId(now.getTime()),
    runId,
    requestedAt: now.toISOString(),
    verb,
    reason,
    payload,
    ...(by !== undefined && { by }),
  };
}

export function appendRequest(paths: ControlPaths, request: ControlRequest): void {
  mkdirSync(paths.dir, { recursive: true });
  appendLineOnce(paths.requests, JSON.stringify(request));
}

export function appendStatus(paths: ControlPaths, status: ControlStatus): void {
  mkdirSync(paths.dir, { recursive: true });
  appendLineOnce(paths.status, JSON.stringify(status));
}

/** Control lines are short; a longer one is no request (nor a status). */
const MAX_CONTROL_LINE = 1024 * 1024;

function parseRequest(line: string): ControlRequest | undefined {
  try {
    const r = JSON.parse(line) as Partial<ControlRequest>;
    const ok =
      typeof r === "object" &&
      r !== null &&
      typeof r.id === "string" &&
      typeof r.runId === "string" &&
      typeof r.verb === "string" &&
      (CONTROL_VERBS as readonly string[]).includes(r.verb) &&
      typeof r.payload === "object" &&
      r.payload !== null;
    return ok ? (r as ControlRequest) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads a requests file as it grows: each `next()` returns the requests appended since the
 * last (malformed lines are skipped, as the public autoloop does), reading only new bytes.
 */
export class RequestReader {
  private readonly cursor: LineCursor;

  constructor(paths: ControlPaths) {
    this.cursor = new LineCursor(paths.requests, 0, { maxLineBytes: MAX_CONTROL_LINE });
  }

  next(): ControlRequest[] {
    return this.cursor
      .readNew()
      .map(parseRequest)
      .filter((r) => r !== undefined);
  }
}

/** Every request and status line so far (`control show`). */
export function readControl(paths: ControlPaths): {
  requests: ControlRequest[];
  statuses: ControlStatus[];
} {
  const requests = new RequestReader(paths).next();
  const statuses = new LineCursor(paths.status, 0, { maxLineBytes: MAX_CONTROL_LINE })
    .readNew()
    .map((line) => {
      try {
        return JSON.parse(line) as ControlStatus;
      } catch {
        return undefined;
      }
    })
    .filter((s): s is ControlStatus => s !== undefined && typeof s.id === "string");
  return { requests, statuses };
}

export interface Capabilities {
  backend: string;
  runId: string;
  publishedAt: string;
  guidance: { supported: boolean; detail?: string };
  inspect: { supported: boolean; detail?: string };
  interrupt: { supported: boolean; detail?: string };
}

/** What this harness can do for a run, published at its start (`control capabilities`). */
export function publishCapabilities(paths: ControlPaths, runId: string, backend: string): void {
  const caps: Capabilities = {
    backend,
    runId,
    publishedAt: new Date().toISOString(),
    guidance: { supported: true, detail: "shown in the next iteration's prompt" },
    inspect: { supported: true },
    interrupt: {
      supported: true,
      detail:
        "SIGUSR1 to the harness: the agent's process group is stopped, the next iteration starts",
    },
  };
  mkdirSync(paths.dir, { recursive: true });
  // Published again at every start: a crash that loses it loses nothing.
  writeFileAtomic(paths.capabilities, `${JSON.stringify(caps, null, 2)}\n`, { durable: false });
}
