// The retake policy every claimer of slots uses (the daemon, `fire` without one): the config's
// margin, and the run's heartbeat file as proof that its launcher spawned it.
import { existsSync } from "node:fs";
import type { CronConfig } from "../config/config.js";
import { type RetakePolicy, retakeAfterMs } from "../ledger/claim-retake.js";
import { heartbeatPath } from "./heartbeat-file.js";

export function retakePolicy(
  config: Pick<CronConfig, "stateDir" | "runHeartbeatMs" | "leaseMs">,
): RetakePolicy {
  return {
    afterMs: retakeAfterMs(config),
    beating: (runId) => {
      const path = heartbeatPath(config.stateDir, runId);
      return path !== undefined && existsSync(path);
    },
  };
}
