// How a run's outcome looks in a chart: a colour (the page's marks use the same ones) and a
// side of the baseline, so that an outcome reads without colour too: runs that completed
// stand above the line, runs that did not hang below it, a skipped slot is a dot on it.

/** The statuses a run's summary can have (the ledger's `SummaryStatus`). */
export type Outcome =
  | "completed"
  | "failed"
  | "timed_out"
  | "killed"
  | "interrupted"
  | "running"
  | "pending"
  | "skipped";

export interface OutcomeLook {
  colour: string;
  /** Above the baseline, below it, or a dot on it. */
  side: "up" | "down" | "dot";
  /** A run still going: drawn pale, its bar growing. */
  pale: boolean;
}

const LOOKS: Record<Outcome, OutcomeLook> = {
  completed: { colour: "#1a7f37", side: "up", pale: false },
  failed: { colour: "#cf222e", side: "down", pale: false },
  timed_out: { colour: "#9a3412", side: "down", pale: false },
  killed: { colour: "#6639ba", side: "down", pale: false },
  interrupted: { colour: "#6639ba", side: "down", pale: false },
  running: { colour: "#0550ae", side: "up", pale: true },
  pending: { colour: "#0550ae", side: "up", pale: true },
  skipped: { colour: "#57606a", side: "dot", pale: false },
};

export function outcomeLook(status: string): OutcomeLook {
  return LOOKS[status as Outcome] ?? LOOKS.failed;
}

/** "timed out" for "timed_out". */
export const outcomeWords = (status: string): string => status.replace("_", " ");
