// The vocabulary of how a run ended, as the ledger records it: statuses, spend, outcome.

/** What a run runs: a preset or a chain through the harness (which journals), or a command. */
export type RunKind = "preset" | "chain" | "command";

/** True for runs of the harness, whose journal says how they ended. */
export const journalsItsEnd = (kind: RunKind): boolean => kind !== "command";

export const RUN_STATUSES = [
  "pending",
  "running",
  "completed",
  "failed",
  "killed",
  "timed_out",
  "interrupted",
] as const;

export type RunStatus = (typeof RUN_STATUSES)[number];

export type TerminalStatus = Exclude<RunStatus, "pending" | "running">;

// A run its schedule refused to start, as configured: a fork's pull request without
// `allow_forks`, which anyone may open and push to. The schedule did what it was told; no
// stranger may page its on-call or pause it (`pause_after_failures`) by asking again.
const REFUSED_AS_CONFIGURED: ReadonlySet<string> = new Set(["fork_refused"]);

/** True for a run its schedule refused as configured: recorded failed, yet no failure. */
export function refusedAsConfigured(run: { status: string; stopReason?: string }): boolean {
  return run.status === "failed" && REFUSED_AS_CONFIGURED.has(run.stopReason ?? "");
}

/** A run's spend: the known cost, its tokens, and how many iterations' cost is unknown. */
export interface RunSpend {
  costUsd: number;
  tokens: number;
  unpricedIterations: number;
  /** Per model, from the run's `backend.usage` records (for `/metrics`; not in the ledger). */
  byModel?: Record<string, { costUsd: number; tokens: number }>;
}

/**
 * Where a run's booked spend came from: `harness`, what our harness reported in the run's
 * private folder (`end.json`); `journal`, the run's own journal (another harness, a harness
 * killed before its end), which the run can rewrite.
 */
export type SpendBasis = "harness" | "journal";

/**
 * The most one run is believed to spend. A figure past these (or not finite, or negative) is
 * no figure: the run's spend is unknown, which budgets count as its ceiling, never as 0.
 */
export const MAX_RUN_USD = 1_000_000;
export const MAX_RUN_TOKENS = 1e12;

const within = (n: number | undefined, max: number) =>
  n !== undefined && Number.isFinite(n) && n >= 0 && n <= max ? n : undefined;

/** A run's dollar figure when believable; undefined (unknown) otherwise. */
export const plausibleUsd = (n: number | undefined) => within(n, MAX_RUN_USD);
/** A run's token count when believable; undefined (unknown) otherwise. */
export const plausibleTokens = (n: number | undefined) => within(n, MAX_RUN_TOKENS);

/** Why the launcher itself ended the run, if it did. */
export type KillCause = { by: "timeout" } | { by: "operator"; reason: string };

/**
 * What status was decided from, so alerts can say "from the journal" or "from the exit code";
 * `fetch`: the run's remote could not be fetched, so it never started.
 */
export type OutcomeBasis = "journal" | "exit" | "timeout" | "operator" | "spawn" | "fetch" | "lost";

export interface RunOutcome {
  status: TerminalStatus;
  basis: OutcomeBasis;
  /** `fields.reason` of the terminal record, when there was one. */
  stopReason?: string;
  exitCode?: number;
  signal?: string;
  durationMs: number;
  journalPath: string;
  /** A short human explanation when the status alone does not say it. */
  detail?: string;
  spend?: RunSpend;
  /** Where `spend` came from (absent: no spend was reported). */
  spendBasis?: SpendBasis;
  /** When its agent said to try again (a rate-limited stop), as an ISO time. */
  retryAfter?: string;
}
