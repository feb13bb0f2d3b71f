// A daemon's side of the lease (`[ha] lease`): as a standby it looks every third of the lease
// and takes it once it lapsed; as the holder it renews it as often, and says so once it cannot.
import type { Logger } from "pino";
import { thisHostId } from "../launch/host-id.js";
import { type LeaseRecord, type LeaseStep, leaseStep } from "./lease.js";
import { fileLeaseStore, type LeaseStore } from "./lease-store.js";

export interface LeaseKeeperDeps {
  logger: Logger;
  now: () => number;
  /** This daemon, unique among every daemon that ever held the lease. */
  holder: string;
  /** Where the lease lives (default: the state dir's files). */
  store: LeaseStore;
}

/** `<host id>/<pid>/<start>`: pids are reused, and hosts share names. */
export function thisHolder(now = Date.now()): string {
  return `${thisHostId()}/${process.pid}/${new Date(now).toISOString()}`;
}

export class LeaseKeeper {
  private readonly deps: LeaseKeeperDeps;
  private held: LeaseRecord | undefined;
  private timer: NodeJS.Timeout | undefined;
  private deadline: NodeJS.Timeout | undefined;
  /** How often it looks or renews: a third of the lease, so one failed renewal is survived. */
  readonly periodMs: number;
  /** A holder renews only while more than this is left (`leaseStep`). */
  private readonly marginMs: number;

  constructor(
    stateDir: string,
    readonly leaseMs: number,
    deps: Partial<LeaseKeeperDeps> & { logger: Logger },
  ) {
    const now = deps.now ?? Date.now;
    this.deps = { now, holder: thisHolder(now()), store: fileLeaseStore(stateDir), ...deps };
    this.periodMs = Math.max(1, Math.floor(leaseMs / 3));
    this.marginMs = leaseMs / 4;
  }

  /** One look at the lease: takes it, renews it, or says who holds it or why it was lost. */
  async step(): Promise<LeaseStep> {
    const { store } = this.deps;
    const found = await store.read();
    const now = this.deps.now();
    const step = leaseStep(found, this.deps.holder, this.held !== undefined, now, this.marginMs);
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
      if (await store.take(record, found)) this.held = record;
      else return { kind: "wait", holder: "another daemon", expiresAt: now + this.leaseMs };
    } else if (step.kind === "renew" && found !== undefined) {
      const record = { ...step.record, renewedAt: new Date(now).toISOString(), expiresAt };
      if (!(await store.renew(record, found)))
        return { kind: "lost", reason: "another daemon wrote the lease as this one renewed it" };
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
      const step = await this.tryStep();
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

  /**
   * After `acquire`: renews every period; `onLost` once, when it could not (firing must stop).
   * A renewal still unanswered when the margin begins is lost too: a standby may take it then.
   */
  keep(onLost: (reason: string) => void): void {
    let busy = false;
    const lose = (reason: string) => {
      if (this.held === undefined) return;
      this.stop();
      this.held = undefined;
      onLost(reason);
    };
    const armDeadline = () => {
      clearTimeout(this.deadline);
      const held = this.held;
      if (held === undefined) return;
      const at = Date.parse(held.expiresAt) - this.marginMs;
      this.deadline = setTimeout(
        () => lose(`not renewed in time (it lapses at ${held.expiresAt})`),
        Math.max(0, at - this.deps.now()),
      );
    };
    this.timer = setInterval(async () => {
      if (busy) return;
      busy = true;
      const step = await this.tryStep();
      busy = false;
      if (step?.kind === "lost") lose(step.reason);
      else armDeadline();
    }, this.periodMs);
    armDeadline();
  }

  /** A step whose I/O failed is logged and tried again next period (a lapse ends in "lost"). */
  private async tryStep(): Promise<LeaseStep | undefined> {
    try {
      return await this.step();
    } catch (err) {
      const where = this.deps.store.where;
      this.deps.logger.warn({ err, where }, "lease: cannot read or write it");
      const held = this.held;
      if (held !== undefined && this.deps.now() >= Date.parse(held.expiresAt) - this.marginMs)
        return { kind: "lost", reason: `not renewed in time (${String(err)})` };
      return undefined;
    }
  }

  /** Ends the lease now (a clean shutdown), so a standby takes over at its next look. */
  async release(): Promise<void> {
    this.stop();
    const held = this.held;
    this.held = undefined;
    if (held !== undefined) await this.deps.store.release(held, this.deps.now());
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.deadline);
    this.timer = undefined;
    this.deadline = undefined;
  }
}
