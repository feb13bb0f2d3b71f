// `autoloop-cron start` with `[ha] lease`: stand by until this daemon holds the lease, then keep
// it; when it is lost, whatever fires must stop at once (the caller's `onLost`), then shut down.
import type { Logger } from "pino";
import type { CronConfig } from "../config/config.js";
import { LeaseKeeper } from "./lease-keeper.js";
import { openLeaseStore } from "./lease-store.js";

/** The lease this daemon holds, from its taking to its release. */
export interface HeldLease {
  /** Resolves when the lease was lost (renewal failed, or another daemon holds it). */
  lost: Promise<"lease lost">;
  /** Called at once when the lease is lost, before `lost` resolves: stop firing there. */
  onLost(stopFiring: () => void): void;
  /** Ends the lease now (a clean shutdown): a standby takes over at its next look. */
  release(): Promise<void>;
}

/**
 * Without `[ha] lease`: undefined (the daemon fires, as it always did). With it: waits as a
 * standby until the lease is this daemon's, or "stopped" when `cancelled` resolved first.
 */
export async function holdLease(
  config: CronConfig,
  logger: Logger,
  cancelled: Promise<unknown>,
): Promise<HeldLease | "stopped" | undefined> {
  if (config.leaseMs === undefined) return undefined;
  const store = await openLeaseStore(config.leaseStore, config.stateDir, config.leaseMs);
  const keeper = new LeaseKeeper(config.stateDir, config.leaseMs, { logger, store });
  const waitingSince = Date.now();
  if (!(await keeper.acquire(cancelled))) return "stopped";
  logger.info(
    { leaseMs: config.leaseMs, waitedMs: Date.now() - waitingSince, lease: store.where },
    "lease taken: taking over (recovering runs and catching up as after a restart)",
  );
  let stopFiring = () => {};
  const lost = new Promise<"lease lost">((resolve) =>
    keeper.keep((reason) => {
      logger.error({ reason }, "lease lost: stopped firing; shutting down (another daemon fires)");
      stopFiring();
      resolve("lease lost");
    }),
  );
  return {
    lost,
    onLost: (fn) => {
      stopFiring = fn;
    },
    release: async () => {
      try {
        await keeper.release();
      } catch (err) {
        logger.warn({ err }, "lease: cannot release it; a standby takes over when it lapses");
      }
    },
  };
}
