// The daemon's spawn helper: a small child process (`autoloop-cron spawn-helper`) that spawns
// the runs, so that the daemon's event loop never holds for a fork and exec. A fork copies
// the page tables of the process that forks and waits for the child's exec, longer the more
// memory the daemon holds (its schedules); sending a message costs far less.
//
// The helper is the runs' parent; the daemon still signals their process groups itself and
// reads how they ended from their wrappers' status files. Should the helper die, runs it
// started are watched by pid (as after a daemon restart), a request it left unanswered is
// looked up by the run id in /proc before it is spawned here instead, and later runs are
// spawned by a new helper, or by the daemon itself if the helper keeps dying.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { Logger } from "pino";
import { findProcessByRunId, isSameProcessAlive } from "./identity.js";
import {
  type ExitResult,
  type ProcessStarter,
  type StartedProcess,
  type StartRequest,
  startDirect,
} from "./process-start.js";

/** Daemon → helper. */
type Request = StartRequest & { id: number };
/** Helper → daemon: the pid (or why the log could not be opened), then the exit. */
type Reply =
  | { id: number; kind: "spawned"; pid: number | undefined; startTime: string | undefined }
  | { id: number; kind: "refused"; error: string }
  | ({ id: number; kind: "exited" } & ExitResult);

interface InFlight {
  request: StartRequest;
  resolve(started: StartedProcess): void;
  reject(err: Error): void;
  pid?: number;
  startTime?: string | undefined;
  exited?: (result: ExitResult) => void;
}

const MIN_LIFETIME_MS = 60_000;
/** How often a run is looked for once nobody reports its exit (the helper died). */
const ORPHAN_POLL_MS = 500;
/** How long after the helper died an unanswered request's run is looked for by run id. */
const ORPHAN_LOOKUP_MS = 250;

export class SpawnHelper {
  private child: ChildProcess | undefined;
  private startedAt = 0;
  private nextId = 1;
  private readonly inFlight = new Map<number, InFlight>();
  /** Closed, or died too soon: runs are spawned from this process. */
  private direct = false;

  constructor(
    /** The helper's command line, e.g. `[node, autoloop-cron.js, "spawn-helper"]`. */
    private readonly argv: readonly string[],
    private readonly log: Pick<Logger, "info" | "warn">,
    /** A helper that dies sooner than this after its start is not started again. */
    private readonly minLifetimeMs = MIN_LIFETIME_MS,
  ) {}

  /** Starts the helper now, while this process is small (its fork is cheap). */
  open(): this {
    this.ensure();
    return this;
  }

  readonly start: ProcessStarter = (request) => {
    const child = this.ensure();
    if (child === undefined) {
      try {
        return Promise.resolve(startDirect(request));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    const id = this.nextId++;
    return new Promise<StartedProcess>((resolve, reject) => {
      this.inFlight.set(id, { request, resolve, reject });
      child.send({ id, ...request } satisfies Request);
    });
  };

  /** The helper's pid, while one runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Lets the helper go (it exits once its channel closes); runs go on without it. */
  close(): void {
    this.direct = true;
    const child = this.child;
    this.child = undefined;
    if (child?.connected) child.disconnect();
    this.orphanAll();
  }

  private ensure(): ChildProcess | undefined {
    if (this.direct) return undefined;
    if (this.child !== undefined) return this.child;
    const [file, ...args] = this.argv;
    const child = spawn(file!, args, { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    // Neither the helper nor its channel keeps the daemon alive; the daemon's runs do.
    child.unref();
    child.channel?.unref();
    child.on("message", (reply: Reply) => this.onReply(reply));
    child.on("error", (err) => this.onGone(child, `cannot run the spawn helper: ${err.message}`));
    // Gone once its channel is closed, not at its exit: replies still in the channel (a pid
    // it sent just before dying) are read first.
    const why = () =>
      `the spawn helper is gone (${child.signalCode ?? `exit code ${child.exitCode ?? "unknown"}`})`;
    child.on("exit", () => {
      if (!child.connected) this.onGone(child, why());
    });
    child.on("disconnect", () => this.onGone(child, why()));
    this.child = child;
    this.startedAt = Date.now();
    this.log.info({ helperPid: child.pid }, "spawn helper started");
    return child;
  }

  private onReply(reply: Reply): void {
    const f = this.inFlight.get(reply.id);
    if (f === undefined) return;
    if (reply.kind === "refused") {
      this.inFlight.delete(reply.id);
      f.reject(new Error(reply.error));
    } else if (reply.kind === "spawned") {
      f.pid = reply.pid;
      f.startTime = reply.startTime;
      const exit = new Promise<ExitResult>((resolve) => {
        f.exited = resolve;
      });
      f.resolve({ pid: reply.pid, startTime: reply.startTime, exit });
    } else {
      this.inFlight.delete(reply.id);
      const { kind: _, id: __, ...result } = reply;
      f.exited?.(result);
    }
  }

  private onGone(child: ChildProcess, why: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    const soon = Date.now() - this.startedAt < this.minLifetimeMs;
    if (soon) this.direct = true;
    this.log.warn(
      { inFlight: this.inFlight.size },
      `${why}; ${soon ? "runs are spawned by the daemon itself from now on" : "a new one starts with the next run"}`,
    );
    this.orphanAll();
  }

  /** Requests nobody will answer now: watched by pid, found by run id, or spawned here. */
  private orphanAll(): void {
    const orphans = [...this.inFlight.values()];
    this.inFlight.clear();
    for (const f of orphans) {
      const exited = f.exited;
      if (exited === undefined) {
        // The helper may have forked the run just before it died: give a fork the time to
        // exec (and so carry the run id) before looking for it.
        setTimeout(() => this.recover(f), ORPHAN_LOOKUP_MS);
      } else if (f.pid === undefined) {
        exited({ failure: "the spawn failed, and the spawn helper died before saying why" });
      } else {
        void whenGone(f.pid, f.startTime).then(() => exited({}));
      }
    }
  }

  private recover(f: InFlight): void {
    const found = findProcessByRunId(f.request.runId);
    if (found === undefined && existsSync(f.request.outputPath)) {
      // The helper opened its log, so the run may have run and ended: never twice.
      f.reject(
        new Error(
          "the spawn helper died while starting the run, which may have run (its output log exists); not started again",
        ),
      );
      return;
    }
    if (found === undefined) {
      this.start(f.request).then(f.resolve, f.reject);
      return;
    }
    const { pid, startTime } = found;
    f.resolve({ pid, startTime, exit: whenGone(pid, startTime).then(() => ({})) });
  }
}

/** Resolves once the process is gone (we are not its parent: no exit status comes). */
function whenGone(pid: number, startTime: string | undefined): Promise<void> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (isSameProcessAlive(pid, startTime)) return;
      clearInterval(poll);
      resolve();
    }, ORPHAN_POLL_MS);
    poll.unref(); // a running daemon has its own timers; a stopping one must not wait on this
  });
}

/** The helper's side: spawns what it is asked to, reports pids and exits; ends with its channel. */
export function serveSpawnRequests(): void {
  process.title = "autoloop-cron spawn-helper";
  // A Ctrl-C or hangup on the daemon's terminal is the daemon's to handle; the helper ends
  // when the daemon closes its channel (or dies).
  process.on("SIGINT", () => {});
  process.on("SIGHUP", () => {});
  const reply = (r: Reply) => {
    if (process.connected) process.send?.(r);
  };
  process.on("message", (request: Request) => {
    let started: StartedProcess;
    try {
      started = startDirect(request);
    } catch (err) {
      reply({ id: request.id, kind: "refused", error: (err as Error).message });
      return;
    }
    const { pid, startTime } = started;
    reply({ id: request.id, kind: "spawned", pid, startTime });
    void started.exit.then((result) => reply({ id: request.id, kind: "exited", ...result }));
  });
  // The daemon is gone or let us go: runs go on without their parent (they are adopted).
  process.on("disconnect", () => process.exit(0));
}
