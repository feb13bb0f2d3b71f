// What the monitor knows of the scheduler when it runs without the daemon in its process
// (`autoloop-cron monitor`): schedule files re-read now and then, and the run ledger reopened
// whenever the daemon (in another process) changed it.
import { statSync } from "node:fs";
import type { Logger } from "pino";
import type { CronConfig } from "../scheduler/config/config.js";
import { RunLedger } from "../scheduler/ledger/ledger.js";
import { registerEnvFileSecrets } from "../scheduler/schedules/env-file-secrets.js";
import { ScheduleFileCache } from "../scheduler/schedules/file-cache.js";
import type { Schedule } from "../scheduler/schedules/schedule-file.js";
import { loadScheduleSet } from "../scheduler/schedules/schedule-set.js";
import type { FieldProblem } from "../util/errors.js";

const RELOAD_SCHEDULES_MS = 30_000;

function stamp(path: string): string {
  try {
    const s = statSync(path, { throwIfNoEntry: false });
    return s === undefined ? "-" : `${s.size}:${s.mtimeMs}`;
  } catch {
    return "?"; // unreadable (EACCES, ENOTDIR): RunLedger.open logs it and reads what it can
  }
}

export class StandaloneScheduler {
  private current: Map<string, Schedule> = new Map();
  private readonly files = new ScheduleFileCache();
  private invalid: FieldProblem[] = [];
  private loadedAt = Number.NEGATIVE_INFINITY;
  private opened: RunLedger | undefined;
  private ledgerStamp = "";
  /** The ledger's files were looked at in the work in hand (until its microtasks run). */
  private ledgerChecked = false;
  /** Schedule files were read at least once (an unreadable folder leaves the set unknown). */
  loaded = false;

  constructor(
    private readonly config: CronConfig,
    private readonly logger: Logger,
  ) {}

  /** Re-reads schedule files when due. A config error only logs: the journals still count. */
  refresh(now: Date): void {
    const t = now.getTime();
    if (t >= this.loadedAt && t - this.loadedAt < RELOAD_SCHEDULES_MS) return;
    this.loadedAt = t;
    try {
      const update = loadScheduleSet(this.config, this.current, this.files);
      this.current = update.schedules;
      registerEnvFileSecrets(update.schedules.values());
      this.invalid = update.problems;
      this.loaded = true;
    } catch (err) {
      this.logger.error({ err }, "monitor: cannot read schedule files");
    }
  }

  schedules(): ReadonlyMap<string, Schedule> {
    return this.current;
  }

  problems(): FieldProblem[] {
    return this.invalid;
  }

  /**
   * The ledger as on disk now: reopened when its index or pending list changed. Looked at
   * once per piece of synchronous work: a pass asks for it for each run's facts, streaks and
   * overdue slots, and two stats per ask were a visible share of a busy monitor's CPU.
   */
  ledger(): RunLedger {
    if (this.opened !== undefined && this.ledgerChecked) return this.opened;
    const dir = this.config.stateDir;
    const stamps = `${stamp(`${dir}/runs/index.jsonl`)}|${stamp(`${dir}/pending.json`)}`;
    this.ledgerChecked = true;
    queueMicrotask(() => {
      this.ledgerChecked = false;
    });
    if (this.opened === undefined || stamps !== this.ledgerStamp) {
      this.opened = RunLedger.open(dir, { logger: this.logger });
      this.ledgerStamp = stamps;
    }
    return this.opened;
  }
}
