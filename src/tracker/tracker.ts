// What the daemon asks of an issue tracker (GitHub issues, GitLab issues, Linear): the ready
// issues, oldest first; mark one taken, finished or given back; comment on one. One module per
// tracker implements it with that tracker's official client.
import type { SecretRef } from "../util/secrets.js";

export const TRACKERS = ["github", "gitlab", "linear"] as const;
export type TrackerKind = (typeof TRACKERS)[number];

/** A schedule's `source` as the scheduler holds it. */
export interface TrackerSource {
  kind: TrackerKind;
  /** GitHub owner/name, GitLab group/name, Linear the team's key. */
  repository: string;
  apiUrl: string;
  /** Ready issues carry this label (GitHub, GitLab; Linear: only when set). */
  label?: string | undefined;
  /** GitHub and GitLab: the labels of an issue taken, and of one finished. */
  workingLabel?: string;
  doneLabel?: string;
  /** Linear: the workflow states of an issue ready, taken and finished. */
  state?: string;
  workingState?: string;
  doneState?: string;
  limit: number;
  token: Extract<SecretRef, { kind: "env" | "file" }>;
}

/** An issue as the daemon keeps it: the sender's words (`title`, `body`) are data, never orders. */
export interface TrackerIssue {
  /** What the tracker's API names it by: GitHub and GitLab its number, Linear its id. */
  id: string;
  /** What people call it: `#12`, `ENG-12`. */
  ref: string;
  title: string;
  body: string;
  url: string;
  createdAt: string;
}

/** A comment of the daemon's on an issue: a run took it, or a run's end gave it up. */
export interface IssueMark {
  kind: "claim" | "release";
  runId: string;
  /** The tracker user who wrote the comment, when the tracker says (anyone may write one). */
  author?: string | undefined;
}

export interface Tracker {
  /** Open issues ready to take (not taken, not finished), oldest first, at most `max`. */
  ready(max: number): Promise<TrackerIssue[]>;
  /** Marks the issue taken by `runId`: the working label (state) and a claim comment. */
  take(issue: string, runId: string): Promise<void>;
  /** The daemon's marks among the issue's comments, oldest first. */
  marks(issue: string): Promise<IssueMark[]>;
  comment(issue: string, body: string): Promise<void>;
  /** Drops the working mark; `done` marks it finished, else it is ready again. */
  release(issue: string, done: boolean): Promise<void>;
  /** Task sync (optional): the issue's body as it is now. */
  issueBody?(issue: string): Promise<string>;
  /** Task sync (optional): replaces the issue's body, which only ever differs in boxes ticked. */
  editIssueBody?(issue: string, body: string): Promise<void>;
}

export interface TrackerOptions {
  source: TrackerSource;
  token: string;
}

/** The words a pull request body closes an issue with, in the tracker's own syntax. */
export function closingRef(source: TrackerSource, issue: Pick<TrackerIssue, "ref">): string {
  if (source.kind === "linear") return `Fixes ${issue.ref}`;
  return `Closes ${source.repository}${issue.ref}`;
}

// The hidden first line of the daemon's comments: which run took the issue, or gave it up.
const MARK = /^<!-- autoloop-cron:(claim|release) run=([A-Za-z0-9._:@-]+) -->/;

/** A comment that says `runId` took the issue (`claim`) or is done with it (`release`). */
export function markedComment(kind: IssueMark["kind"], runId: string, text: string): string {
  return `<!-- autoloop-cron:${kind} run=${runId} -->\n${text}`;
}

export function markOfComment(body: string): IssueMark | undefined {
  const m = MARK.exec(body);
  return m === null ? undefined : { kind: m[1] as IssueMark["kind"], runId: m[2]! };
}

/**
 * The run whose claim holds the issue: the earliest claim since the last release. Two daemons
 * that share no state dir both label an issue and both comment; the first comment wins.
 */
export function claimHolder(marks: readonly IssueMark[]): string | undefined {
  let holder: string | undefined;
  for (const m of marks) {
    if (m.kind === "release") holder = undefined;
    else holder ??= m.runId;
  }
  return holder;
}

/**
 * The run holding the issue as `runId` sees it just after its own claim: only marks by the
 * author of that claim count, so a stranger's comment that looks like a claim (or a release)
 * neither keeps the issue from every daemon nor frees it. Daemons that share no state dir thus
 * coordinate only when their tokens are one tracker user's. The last claim of `runId` is ours
 * (one written earlier with our run id was guessed by someone else). When the tracker shows
 * no author for it, or hides it, every mark counts, as before authors were read.
 */
export function claimHolderFor(marks: readonly IssueMark[], runId: string): string | undefined {
  const ours = marks.findLast((m) => m.kind === "claim" && m.runId === runId);
  const author = ours?.author;
  return claimHolder(author === undefined ? marks : marks.filter((m) => m.author === author));
}

/** A comment as the daemon reads it back: its text and who wrote it, when the tracker says. */
export interface TrackerComment {
  body: string | null | undefined;
  author: string | undefined;
}

/** The daemon's marks among an issue's comments (in the tracker's order, oldest first). */
export function marksIn(comments: Iterable<TrackerComment>): IssueMark[] {
  const marks: IssueMark[] = [];
  for (const { body, author } of comments) {
    const mark = markOfComment(body ?? "");
    if (mark !== undefined) marks.push({ ...mark, author });
  }
  return marks;
}

/** An issue of a tracker that marks taken and finished issues with labels (GitHub, GitLab). */
export interface LabelledIssue {
  number: number;
  title: string;
  body: string | null | undefined;
  url: string;
  createdAt: string;
  labels: string[];
}

/** The first `max` of `issues` (listed oldest first) neither taken nor finished. */
export function readyByLabels(
  issues: readonly LabelledIssue[],
  source: TrackerSource,
  max: number,
): TrackerIssue[] {
  const busy = new Set([source.workingLabel, source.doneLabel]);
  return issues
    .filter((i) => !i.labels.some((l) => busy.has(l)))
    .slice(0, max)
    .map((i) => ({
      id: String(i.number),
      ref: `#${i.number}`,
      title: i.title,
      body: i.body ?? "",
      url: i.url,
      createdAt: i.createdAt,
    }));
}
