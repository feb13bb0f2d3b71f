// What a decided slot comes to, for every path that fires one (the daemon's due slots, `fire`
// with or without a daemon, the status page, MCP): a skip with the record the ledger keeps, a
// wait, a replacement, or a launch with the spec its run starts from (history attached).
import { join } from "node:path";
import type { BudgetStanding } from "../budget/standing.js";
import type { CronConfig } from "../config/config.js";
import { attachHistory } from "../history/schedule-history.js";
import type { RunElsewhere } from "../launch/run-liveness.js";
import { launchSpecFor } from "../launch/schedule-spec.js";
import type { LaunchSpec } from "../launch/spec.js";
import type { Trigger } from "../ledger/events.js";
import type { RunLedger } from "../ledger/ledger.js";
import { newScheduledRunId } from "../ledger/scheduled-run-id.js";
import type { Schedule } from "../schedules/schedule-file.js";
import { ledgerCause, type SkipRecord } from "./admission.js";
import type { SlotDecision } from "./policy.js";
import { QUEUE_LIMIT } from "./slot-queue.js";

/** One slot of one schedule, and what fired it. */
export interface SlotAsk {
  schedule: string;
  slot: Date;
  trigger: Trigger;
}

/** Whether a slot the policy queues can wait: yes, not now (its queue is full), never (no daemon). */
export type Waiting = "possible" | "full" | "impossible";

export type SlotCourse =
  | { kind: "launch" }
  | { kind: "skip"; skip: SkipRecord }
  | { kind: "queue"; why: "overlap" | "max_concurrent"; detail: string }
  | { kind: "replace"; stop: readonly string[] };

/**
 * The course a slot takes by `decision`; a slot that cannot wait is skipped, saying why. So is
 * one that would wait for, or replace, a run of another host (`elsewhere`): its end is not
 * seen here, and its processes cannot be signalled from here.
 */
export function slotCourse(
  decision: SlotDecision,
  ask: SlotAsk,
  waiting: Waiting,
  elsewhere: readonly RunElsewhere[] = [],
): SlotCourse {
  const skip = (cause: SkipRecord["cause"], detail: string): SlotCourse => ({
    kind: "skip",
    skip: { ...ask, runId: newScheduledRunId(ask.schedule, ask.slot), cause, detail },
  });
  const remote = elsewhere[0];
  const onRemote =
    decision.kind === "replace" || (decision.kind === "queue" && decision.why === "overlap");
  if (remote !== undefined && onRemote)
    return skip(
      "overlap",
      `run ${remote.runId} of ${ask.schedule} runs on host ${remote.host}, which this one can neither wait for nor stop (overlap = "${decision.kind}"): skipped; stop it on that host`,
    );
  switch (decision.kind) {
    case "skip":
      return skip(ledgerCause(decision.cause), decision.detail);
    case "queue": {
      const cause = decision.why === "overlap" ? "overlap" : "max_concurrent";
      if (waiting === "full")
        return skip(cause, `the queue is full (${QUEUE_LIMIT} slots of ${ask.schedule} waiting)`);
      if (waiting === "impossible")
        return skip(
          cause,
          `${decision.detail}; without a daemon a slot cannot wait, so it is skipped`,
        );
      return decision;
    }
    default:
      return decision;
  }
}

/**
 * The spec a run of `schedule` for `slot` starts from, with the schedule's history attached
 * and the ceiling its budget leaves the run (`standing`, taken once with the slot's decision,
 * counting the launches decided before it and not yet claimed).
 */
export function scheduledLaunchSpec(
  config: CronConfig,
  ledger: RunLedger,
  schedule: Schedule,
  runId: string,
  slot: Date,
  standing: BudgetStanding | undefined,
): LaunchSpec {
  const { stateDir } = config;
  const spec = launchSpecFor(config, schedule, runId, slot);
  if (spec.kind === "preset" && standing?.kind === "open") spec.budget = standing.ceiling;
  return attachHistory(spec, {
    ledger,
    schedule,
    incidentsDir: join(stateDir, "incidents"),
    runs: schedule.history,
  });
}
