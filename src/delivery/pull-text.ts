// A pull request's title and body, from the run's report (its words: shown as they are, never
// obeyed) and the run's facts as the daemon knows them. Pure.

export interface RunFacts {
  schedule: string;
  runId: string;
  costUsd?: number;
  iterations?: number;
  durationMs?: number;
  commits: number;
  /** The run's page on the daemon's status page, when `[http] public_url` is set. */
  runUrl?: string;
  /** The issues the run took, in the words that close them when it merges (`Closes o/r#12`). */
  closes?: readonly string[];
}

// GitHub refuses a body past 65536 characters and a title past 256; GitLab's and Gitea's
// limits are larger.
const MAX_BODY = 60_000;
const MAX_TITLE = 200;

/**
 * The text of the first `#`, `##` or `###` heading. Read without a regular expression over the
 * line: the run writes the report, and a pattern that backtracks over its spaces held the
 * daemon for minutes.
 */
export function firstHeading(report: string): string | undefined {
  for (const line of report.split("\n")) {
    const marks = /^#{1,3}[ \t]/.exec(line)?.[0];
    if (marks === undefined) continue;
    let text = line.slice(marks.length).trimEnd();
    // A closing run of `#` is the heading's markup, not its words.
    let end = text.length;
    while (end > 0 && text[end - 1] === "#") end--;
    if (end === 0 || /\s/.test(text[end - 1]!)) text = text.slice(0, end);
    text = text.trim();
    if (text !== "") return text;
  }
  return undefined;
}

/** The report's first Markdown heading, else a title naming the schedule. */
export function pullRequestTitle(report: string | undefined, facts: RunFacts): string {
  const heading = firstHeading(report ?? "");
  const title = heading
    ? `${facts.schedule}: ${heading}`
    : `autoloop ${facts.schedule}: run ${facts.runId}`;
  return title.length > MAX_TITLE ? `${title.slice(0, MAX_TITLE - 1)}…` : title;
}

export function factLines(f: RunFacts): string[] {
  const lines = [`- schedule: \`${f.schedule}\``, `- run: \`${f.runId}\``];
  if (f.runUrl !== undefined) lines[1] = `- run: [\`${f.runId}\`](${f.runUrl})`;
  lines.push(`- commits: ${f.commits}`);
  if (f.iterations !== undefined) lines.push(`- iterations: ${f.iterations}`);
  if (f.costUsd !== undefined) lines.push(`- cost: $${f.costUsd.toFixed(2)}`);
  if (f.durationMs !== undefined)
    lines.push(`- duration: ${Math.round(f.durationMs / 60_000)} min`);
  for (const words of f.closes ?? []) lines.push(`- ${words}`);
  return lines;
}

/** The report (cut to fit), then the run's facts under a rule. */
export function pullRequestBody(
  report: string | undefined,
  facts: RunFacts,
  reportName: string,
): string {
  // With `source` the pull request is its issue's (delivery/issue-branch.ts), not the schedule's.
  const by =
    (facts.closes?.length ?? 0) > 0 ? "a later run of the same issue" : "the schedule's next run";
  const tail = [
    "",
    "---",
    `Opened by autoloop-cron from an unattended run; updated by ${by} with changes.`,
    ...factLines(facts),
    "",
  ].join("\n");
  const room = MAX_BODY - tail.length;
  let text =
    report === undefined || report.trim() === ""
      ? `_The run wrote no \`${reportName}\`._\n`
      : report;
  if (text.length > room)
    text = `${text.slice(0, room - 40)}\n\n_(report cut; see ${reportName})_\n`;
  return `${text.trimEnd()}\n${tail}`;
}
