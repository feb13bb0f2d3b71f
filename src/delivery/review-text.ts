// A review's body: the run's report (its words: shown as they are, never obeyed), the run's
// facts, and the hidden marker by which the schedule's next review of the pull request finds
// it to edit in place. Pure.
import { reviewMarker } from "../forge/review.js";
import { factLines, type RunFacts } from "./pull-text.js";

// GitHub refuses a review body past 65536 characters; GitLab's and Gitea's limits are larger.
const MAX_BODY = 60_000;

export function reviewBody(report: string, facts: RunFacts, reportName: string): string {
  const tail = [
    "",
    "---",
    `Reviewed by autoloop-cron in an unattended run; the schedule's next review of this pull request edits this one.`,
    ...factLines(facts),
    reviewMarker(facts.schedule),
    "",
  ].join("\n");
  const room = MAX_BODY - tail.length;
  let text = report;
  if (text.length > room)
    text = `${text.slice(0, room - 40)}\n\n_(report cut; see ${reportName})_\n`;
  return `${text.trimEnd()}\n${tail}`;
}
