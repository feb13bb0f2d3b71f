// The operator's channel to a running daemon: `<state>/daemon.json` says who is running;
// requests are files in `<state>/control/` that the daemon answers with a response file.

import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { PRIVATE_DIR } from "../../util/private-files.js";
import { isSameProcessAlive } from "../launch/identity.js";
import type { ListRow } from "../schedules/list-row.js";

export interface DaemonInfo {
  pid: number;
  /** /proc start time of the daemon, so a reused pid (a new container) is not mistaken for it. */
  startTime?: string;
  startedAt: string;
  config: string;
  http: string;
}

export type ControlRequest =
  /** `pullRequest`: the pull request a review run checks out (`fire --set pr=<n>`). */
  | { id: string; action: "fire"; schedule: string; pullRequest?: number }
  | { id: string; action: "stop"; runId: string; reason: string }
  | { id: string; action: "reload" }
  | { id: string; action: "list" };

export type ControlResponse =
  | { id: string; ok: true; runId?: string; message: string; schedules?: ListRow[] }
  | { id: string; ok: false; error: string };

export function daemonInfoFile(stateDir: string): string {
  return join(stateDir, "daemon.json");
}

export function controlDir(stateDir: string): string {
  return join(stateDir, "control");
}

export function writeDaemonInfo(stateDir: string, info: DaemonInfo): void {
  writeFileAtomic(daemonInfoFile(stateDir), `${JSON.stringify(info, null, 2)}\n`);
}

export function clearDaemonInfo(stateDir: string): void {
  rmSync(daemonInfoFile(stateDir), { force: true });
}

/**
 * The running daemon for this state dir, or undefined. A file left by a crash is ignored:
 * its pid must be alive, not ours, and (where /proc tells) started when the file says.
 */
export function runningDaemon(stateDir: string): DaemonInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(daemonInfoFile(stateDir), "utf8")) as DaemonInfo;
    if (info.pid === process.pid) return undefined;
    return isSameProcessAlive(info.pid, info.startTime) ? info : undefined;
  } catch {
    return undefined;
  }
}

/** A request as its sender writes it (the id is the channel's). */
export type RequestBody = ControlRequest extends infer R
  ? R extends ControlRequest
    ? Omit<R, "id">
    : never
  : never;

/** A way to a daemon: it answers a request. */
export type Control = (body: RequestBody) => Promise<ControlResponse>;

/** The way to the daemon running on `stateDir`, through its control files. */
export function controlFiles(stateDir: string): Control {
  return (body) => sendControl(stateDir, body);
}

/** Drops a request for the daemon and waits for its answer. */
export async function sendControl(
  stateDir: string,
  body: RequestBody,
  timeoutMs = 15_000,
): Promise<ControlResponse> {
  const dir = controlDir(stateDir);
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  const id = randomUUID();
  writeFileAtomic(join(dir, `${id}.request.json`), JSON.stringify({ id, ...body }));
  const responseFile = join(dir, `${id}.response.json`);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = JSON.parse(readFileSync(responseFile, "utf8")) as ControlResponse;
      rmSync(responseFile, { force: true });
      return response;
    } catch {
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  rmSync(join(dir, `${id}.request.json`), { force: true });
  return { id, ok: false, error: `the daemon did not answer within ${timeoutMs / 1000} s` };
}

/** Pending requests, oldest first; each is removed once read. */
export function takeRequests(stateDir: string): ControlRequest[] {
  const dir = controlDir(stateDir);
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith(".request.json"))
      .sort();
  } catch {
    return [];
  }
  const requests: ControlRequest[] = [];
  for (const name of names) {
    const file = join(dir, name);
    try {
      requests.push(JSON.parse(readFileSync(file, "utf8")) as ControlRequest);
    } catch {
      // Unreadable: dropped below so it cannot wedge the queue.
    }
    rmSync(file, { force: true });
  }
  return requests;
}

/** Takes the pending requests and answers each with `handle`'s response (errors logged). */
export function answerRequests(
  stateDir: string,
  handle: (request: ControlRequest) => ControlResponse | Promise<ControlResponse>,
  log: Pick<Logger, "error">,
): void {
  for (const request of takeRequests(stateDir))
    void Promise.resolve()
      .then(() => handle(request))
      .then((response) => answer(stateDir, { ...response, id: request.id }))
      .catch((err: unknown) => log.error({ err, request }, "cannot answer a control request"));
}

export function answer(stateDir: string, response: ControlResponse): void {
  writeFileAtomic(
    join(controlDir(stateDir), `${response.id}.response.json`),
    JSON.stringify(response),
  );
}
