// What a MonitorService is built from (config, logger, the daemon, test seams) and what it reports.

import type { Logger } from "pino";
import type { FollowerDeps, JournalStatus } from "../journal/follower.js";
import type { CronConfig } from "../scheduler/config/config.js";
import type { SchedulerDaemon } from "../scheduler/daemon/daemon.js";
import type { AlertPolicy, Notification } from "./alert-state.js";
import type { ChannelDeps } from "./channels/create.js";
import type { AttemptOutcome } from "./outbox/outbox.js";
import type { OutboxStatus } from "./outbox/status.js";

export interface MonitorServiceOptions {
  config: CronConfig;
  logger: Logger;
  /** The scheduler in the same process: its schedules, ledger and events. */
  daemon?: SchedulerDaemon;
  now?: () => Date;
  /** Called after every alert delivery attempt (the daemon counts them for /metrics). */
  onAttempt?: (outcome: AttemptOutcome) => void;
  /** `--journal` paths: when given, only these journals are followed. */
  journals?: string[];
  /** `start()` makes one pass (`runOnce`) and starts no timers or watchers. */
  once?: boolean;
  /** Time-based conditions (stall, gate grace, crash) are checked this often (default 5 s). */
  evaluateEveryMs?: number;
  outboxPath?: string;
  policy?: Partial<AlertPolicy>;
  channelDeps?: Partial<ChannelDeps>;
  isAlive?: (pid: number) => boolean;
  follower?: { pollIntervalMs?: number; debounceMs?: number; deps?: Partial<FollowerDeps> };
}

export interface MonitorStatus {
  journals: JournalStatus[];
  runs: number;
  firing: { fingerprint: string; kind: string; summary: string }[];
  /** Open and acknowledged incidents, as of the last alert (no disk read: cheap for /metrics). */
  openIncidents: number;
  outbox: OutboxStatus;
}

export interface OnceResult {
  notifications: Notification[];
  outcomes: AttemptOutcome[];
}
