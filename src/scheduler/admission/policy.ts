// What to do with a due slot: launch, skip (and why), queue, or replace the running run.
// Pure: the daemon gathers the facts, this decides.

export type OverlapPolicy = "skip" | "queue" | "replace" | "allow";

export interface SlotFacts {
  schedule: string;
  overlap: OverlapPolicy;
  enabled: boolean;
  /** Paused by `autoloop-cron pause <schedule>`. */
  paused: boolean;
  /** The global kill switch: AUTOLOOP_CRON_PAUSED=1 or `autoloop-cron pause`. */
  globallyPaused: boolean;
  /** Run ids of this schedule's runs still running. */
  running: readonly string[];
  /** Runs of every schedule running now, and the cap. */
  runningTotal: number;
  maxConcurrent: number;
  /** For each `after` schedule: the status of its latest run, or undefined if it never ran. */
  after: ReadonlyArray<{ schedule: string; latestStatus: string | undefined }>;
  /** Why the schedule's budget is spent for now, if it is. */
  budgetExhausted?: string;
}

export type SkipCause =
  | "disabled"
  | "paused"
  | "globally_paused"
  | "overlap"
  | "blocked_by_after"
  | "budget_exhausted";

export type SlotDecision =
  | { kind: "launch" }
  | { kind: "skip"; cause: SkipCause; detail: string }
  | { kind: "queue"; why: "overlap" | "max_concurrent"; detail: string }
  | { kind: "replace"; stop: string[] };

// A thousand slots are decided in one second's pass: the common answer is one shared object.
const LAUNCH: SlotDecision = Object.freeze({ kind: "launch" });

export function decideSlot(f: SlotFacts): SlotDecision {
  if (!f.enabled)
    return { kind: "skip", cause: "disabled", detail: "the schedule has enabled = false" };
  if (f.globallyPaused)
    return {
      kind: "skip",
      cause: "globally_paused",
      detail: "all schedules are paused (AUTOLOOP_CRON_PAUSED or `autoloop-cron pause`)",
    };
  if (f.paused)
    return {
      kind: "skip",
      cause: "paused",
      detail: `schedule ${f.schedule} is paused; \`autoloop-cron resume ${f.schedule}\` resumes it`,
    };
  const unmet =
    f.after.length === 0 ? f.after : f.after.filter((a) => a.latestStatus !== "completed");
  if (unmet.length > 0) {
    const detail = unmet
      .map(
        (a) =>
          `${a.schedule}: ${a.latestStatus === undefined ? "never ran" : `latest run ${a.latestStatus}`}`,
      )
      .join("; ");
    return { kind: "skip", cause: "blocked_by_after", detail: `waiting for ${detail}` };
  }
  if (f.budgetExhausted !== undefined)
    return { kind: "skip", cause: "budget_exhausted", detail: f.budgetExhausted };
  if (f.running.length > 0) {
    switch (f.overlap) {
      case "skip":
        return {
          kind: "skip",
          cause: "overlap",
          detail: `previous run ${f.running.join(", ")} is still running (overlap = "skip")`,
        };
      case "queue":
        return {
          kind: "queue",
          why: "overlap",
          detail: `queued behind ${f.running.join(", ")} (overlap = "queue")`,
        };
      case "replace":
        return { kind: "replace", stop: [...f.running] };
      case "allow":
        break;
    }
  }
  if (f.runningTotal >= f.maxConcurrent) {
    return {
      kind: "queue",
      why: "max_concurrent",
      detail: `${f.runningTotal} runs already running (max_concurrent_runs = ${f.maxConcurrent})`,
    };
  }
  return LAUNCH;
}
