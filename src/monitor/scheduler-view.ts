// The monitor's view of the scheduler, the same whether the daemon runs in this process
// (its schedules, ledger and events) or elsewhere (schedule files and ledger re-read here).
import type { Logger } from "pino";
import type { CronConfig } from "../scheduler/config/config.js";
import type { SchedulerDaemon } from "../scheduler/daemon/daemon.js";
import type { RunLedger } from "../scheduler/ledger/ledger.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import type { FieldProblem } from "../util/errors.js";
import { type ThresholdsFor, thresholdsLookup } from "./detect/thresholds.js";
import { StandaloneScheduler } from "./standalone.js";

export interface DaemonListeners {
  fire(e: { schedule: string; runId: string; trigger: string }): void;
  missed(e: { schedule: string; slots: Date[]; reason: string }): void;
  loaded(): void;
}

export class SchedulerView {
  private readonly standalone: StandaloneScheduler | undefined;
  /** The in-process daemon has loaded its schedule files at least once. */
  private daemonLoaded = false;
  private thresholdsCache:
    | { schedules: ReadonlyMap<string, Schedule>; value: ThresholdsFor }
    | undefined;

  constructor(
    private readonly config: CronConfig,
    logger: Logger,
    private readonly daemon: SchedulerDaemon | undefined,
  ) {
    this.standalone = daemon ? undefined : new StandaloneScheduler(config, logger);
  }

  /** Whether a daemon runs in this process (it then tells of fires and missed slots itself). */
  get inProcess(): boolean {
    return this.daemon !== undefined;
  }

  /** Re-reads schedule files when due (standalone only; the daemon reloads its own). */
  refresh(now: Date): void {
    this.standalone?.refresh(now);
  }

  schedules(): ReadonlyMap<string, Schedule> {
    return this.daemon?.schedules ?? this.standalone?.schedules() ?? new Map();
  }

  /**
   * Whether the schedule set is known yet: before the daemon's first load its map is empty,
   * and an empty map must not read as "every schedule was removed".
   */
  loaded(): boolean {
    if (this.daemon === undefined) return this.standalone?.loaded ?? true;
    return this.daemonLoaded || this.daemon.loadedOnce;
  }

  /** Whether `name` is a schedule in force (every name counts while the set is unknown). */
  isScheduled(name: string): boolean {
    return !this.loaded() || this.schedules().has(name);
  }

  ledger(): RunLedger | undefined {
    return this.daemon?.ledger ?? this.standalone?.ledger();
  }

  invalid(): FieldProblem[] {
    return this.daemon?.invalidProblems ?? this.standalone?.problems() ?? [];
  }

  /** Thresholds per schedule, recomputed only when the schedules are reloaded. */
  thresholds(): ThresholdsFor {
    const schedules = this.schedules();
    if (this.thresholdsCache?.schedules !== schedules) {
      const value = thresholdsLookup(this.config.monitor, (name) => schedules.get(name));
      this.thresholdsCache = { schedules, value };
    }
    return this.thresholdsCache.value;
  }

  /** Listens to the in-process daemon's events; returns what stops listening. */
  listen(on: DaemonListeners): () => void {
    const daemon = this.daemon;
    if (daemon === undefined) return () => {};
    const loaded = () => {
      this.daemonLoaded = true;
      on.loaded();
    };
    daemon.on("fire", on.fire);
    daemon.on("missed", on.missed);
    daemon.on("loaded", loaded);
    return () => {
      daemon.off("fire", on.fire);
      daemon.off("missed", on.missed);
      daemon.off("loaded", loaded);
    };
  }
}
