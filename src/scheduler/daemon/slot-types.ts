// What the slot runner works with: its view of the daemon, and a slot at each step on its
// way from decision to process.
import type { Logger } from "pino";
import type { SlotDecision } from "../admission/policy.js";
import type { CronConfig } from "../config/config.js";
import type { ProcessStarter } from "../launch/process-start.js";
import type { LaunchSpec } from "../launch/spec.js";
import type { Trigger } from "../ledger/events.js";
import type { RunLedger } from "../ledger/ledger.js";
import type { PauseState } from "../schedules/pause-state.js";
import type { Schedule } from "../schedules/schedule-file.js";
import type { DaemonEvents } from "./events.js";

/** What the runner reads from its daemon, always as things stand now. */
export interface SlotContext {
  config: CronConfig;
  ledger: RunLedger;
  log: Logger;
  /** The environment runs are launched with (the daemon's minus the config's secrets). */
  runEnv: NodeJS.ProcessEnv;
  /** Spawns a run's process (the daemon's spawn helper); absent: from this process. */
  startProcess?: ProcessStarter | undefined;
  now(): number;
  schedule(name: string): Schedule | undefined;
  pause(): PauseState;
  killSwitch: boolean;
  stopping(): boolean;
  /** Tells the daemon's listeners (every daemon event has one payload). */
  emit<K extends keyof DaemonEvents>(event: K, payload: DaemonEvents[K][0]): void;
}

/** A slot on its way: its schedule, its instant, what fired it, when it was meant to start. */
interface SlotRef {
  schedule: Schedule;
  slot: Date;
  trigger: Trigger;
  /** Its (jittered) fire time, epoch ms: lateness is measured from here. */
  dueAt: number;
}

/** A launch decided, its place reserved, its process not yet spawned. */
export interface Launch extends SlotRef {
  runId: string;
}

/** A launch whose slot is claimed in the ledger, with what it will spawn. */
export interface Claimed extends Launch {
  spec: LaunchSpec;
  /** Called once it was spawned, or recorded interrupted. */
  done: () => void;
}

/** A slot with its decision, not yet carried out. */
export interface Decided extends SlotRef {
  decision: SlotDecision;
  /** When it was decided (epoch ms): a queued slot's lateness runs to here. */
  decidedAt: number;
  /** A launch's run id, its place already reserved. */
  runId: string | undefined;
}
