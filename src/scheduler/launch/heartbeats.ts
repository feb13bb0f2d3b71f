// The launcher's side of run heartbeats: a run's file is written when its process is known,
// its mtime refreshed every interval while the launcher watches the run, and removed at the
// run's end. The launcher writes them, never the run: a run is evidence, not authority.
import { rmSync } from "node:fs";
import { utimes } from "node:fs/promises";
import type { Logger } from "pino";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { encodeHeartbeat, type Heartbeat, heartbeatPath } from "./heartbeat-file.js";
import { thisHostId } from "./host-id.js";

export interface RunHeartbeatsDeps {
  here: () => string;
  logger: Pick<Logger, "warn"> | undefined;
}

export class RunHeartbeats {
  private readonly beating = new Map<string, { path: string; heartbeat: Heartbeat }>();
  private timer: NodeJS.Timeout | undefined;
  /** A slow disk (NFS) must not pile refreshes up: one pass at a time. */
  private refreshing = false;
  private troubled = false;
  private readonly deps: RunHeartbeatsDeps;

  constructor(
    private readonly stateDir: string,
    readonly intervalMs: number,
    deps: Partial<RunHeartbeatsDeps> = {},
  ) {
    this.deps = { here: thisHostId, logger: undefined, ...deps };
  }

  /** The run's process is known: its heartbeat is on disk before the ledger says it started. */
  start(run: {
    runId: string;
    schedule: string;
    pid: number;
    startTime?: string | undefined;
  }): void {
    const { runId, schedule, pid, startTime } = run;
    const path = heartbeatPath(this.stateDir, runId);
    if (path === undefined) return;
    const host = this.deps.here();
    const heartbeat: Heartbeat = { runId, schedule, host, pid, intervalMs: this.intervalMs };
    if (startTime !== undefined) heartbeat.startTime = startTime;
    this.beating.set(runId, { path, heartbeat });
    this.write(path, heartbeat);
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.refresh(), this.intervalMs);
      this.timer.unref(); // the run being watched keeps a launcher alive, never its heartbeat
    }
  }

  /** The run ended (and the ledger says so): no more beats. */
  end(runId: string): void {
    const run = this.beating.get(runId);
    if (run === undefined) return;
    this.beating.delete(runId);
    rmSync(run.path, { force: true });
    if (this.beating.size === 0) this.close();
  }

  /**
   * Stops beating; files stay. A detaching daemon's runs go on, and look dead from other hosts
   * until the next daemon adopts them (and beats again).
   */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Every watched run's file touched once; a file removed meanwhile is written again. */
  async refresh(): Promise<void> {
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      const at = new Date();
      const runs = [...this.beating.values()];
      await Promise.all(
        runs.map(({ path, heartbeat }) =>
          utimes(path, at, at).catch(() => {
            // Ended meanwhile (its file removed on purpose), or removed by someone else.
            if (this.beating.has(heartbeat.runId)) this.write(path, heartbeat);
          }),
        ),
      );
    } finally {
      this.refreshing = false;
    }
  }

  /** Not durable: a machine crash stops the beats anyway. A failed write never fails a run. */
  private write(path: string, heartbeat: Heartbeat): void {
    try {
      writeFileAtomic(path, encodeHeartbeat(heartbeat), { durable: false });
      this.troubled = false;
    } catch (err) {
      if (this.troubled) return;
      this.troubled = true; // once per spell of trouble, not per beat
      this.deps.logger?.warn(
        { err, path },
        "cannot write a run's heartbeat: on other hosts the run may look dead",
      );
    }
  }
}
