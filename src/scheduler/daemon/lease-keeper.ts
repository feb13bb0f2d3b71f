// A daemon's side of the lease (`[ha] lease`): as a standby it looks every third of the lease
// and takes it once it lapsed; as the holder it renews it as often, and says so once it cannot.
import type { Logger } from "pino";
import { thisHostId } from "../launch/host-id.js";
import { LeaseFiles, type LeaseRecord, type LeaseStep, leaseStep } from "./lease.js";

export interface LeaseKeeperDeps {
  logger: Logger;
  now: () => number;
  /** This daemon, unique among every daemon that ever held the lease. */
  holder: string;
}

/** `<host id>/<pid>/<start>`: pids are reused, and hosts share names. */
export function thisHolder(now = Date.now()): string {
  return `${thisHostId()}/${process.pid}/${new Date(now).toISOString()}`;
}

export class LeaseKeeper {
  private readonly files: LeaseFiles;
  private readonly deps: LeaseKeeperDeps;
  private held: LeaseRecord | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** How often it looks or renews: a third of the lease, so one failed renewal is survived. */
  readonly periodMs: number;

  constructor(
    stateDir: string,
    readonly leaseMs: number,
    deps: Partial<LeaseKeeperDeps> & { logger: Logger },
  ) {
    this.files = new LeaseFiles(stateDir);
    const now = deps.now ?? Date.now;
    this.deps = { now, holder: thisHolder(now()), ...deps };
    this.periodMs = Math.max(1, Math.floor(leaseMs / 3));
  }

  /** One look at the lease: takes it, renews it, or says who holds it or why it was lost. */
  step(): LeaseStep {
    const now = this.deps.now();
    const step = leaseStep(
      this.files.read(),
      this.deps.holder,
      this.held !== undefined,
      now,
      this.leaseMs / 4,
    );
    const expiresAt = new Date(now + this.leaseMs).toISOString();
    if (step.kind === "take") {
      const at = new Date(now).toISOString();
      const record: LeaseRecord = {
        v: 1,
        generation: step.generation,
        holder: this.deps.holder,
        acquiredAt: at,
        renewedAt: at,
        expiresAt,
      };
      if (this.files.take(record)) this.held = record;
      else return { kind: "wait", holder: "another daemon", expiresAt: now + this.leaseMs };
    } else if (step.kind === "renew") {
      const record = { ...step.record, renewedAt: new Date(now).toISOString(), expiresAt };
      this.files.write(record);
      this.held = record;
    }
    return step;
  }

  /** Resolves once this daemon holds the lease (true), or when `cancelled` resolves (false). */
  async acquire(cancelled: Promise<unknown>): Promise<boolean> {
    let stop = false;
    void cancelled.then(() => {
      stop = true;
    });
    let told = "";
    for (;;) {
      if (stop) return false;
      const step = this.tryStep();
      if (step?.kind === "take") return true;
      if (step?.kind === "wait" && step.holder !== told) {
        told = step.holder;
        this.deps.logger.info(
          { holder: step.holder, expiresAt: new Date(step.expiresAt).toISOString() },
          "standby: another daemon holds the lease; taking over when it lapses",
        );
      }
      await new Promise((r) => setTimeout(r, this.periodMs));
    }
  }

  /** After `acquire`: renews every period; `onLost` once, when it could not (firing must stop). */
  keep(onLost: (reason: string) => void): void {
    this.timer = setInterval(() => {
      const step = this.tryStep();
      if (step?.kind !== "lost") return;
      this.stop();
      this.held = undefined;
      onLost(step.reason);
    }, this.periodMs);
  }

  /** A step whose I/O failed is logged and tried again next period (a lapse ends in "lost"). */
  private tryStep(): LeaseStep | undefined {
    try {
      return this.step();
    } catch (err) {
      this.deps.logger.warn({ err, dir: this.files.dir }, "lease: cannot read or write its file");
      const held = this.held;
      const margin = this.leaseMs / 4;
      if (held !== undefined && this.deps.now() >= Date.parse(held.expiresAt) - margin)
        return { kind: "lost", reason: `not renewed in time (${String(err)})` };
      return undefined;
    }
  }

  /** Ends the lease now (a clean shutdown), so a standby takes over at its next look. */
  release(): void {
    this.stop();
    const held = this.held;
    this.held = undefined;
    if (held === undefined || this.files.read()?.record?.holder !== held.holder) return;
    this.files.write({ ...held, expiresAt: new Date(this.deps.now()).toISOString() });
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
