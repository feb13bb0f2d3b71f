// GitHub issues (and GitHub Enterprise Server, through `api_url`) through Octokit: ready issues
// carry the schedule's label; a taken one the working label and a claim comment.
import { githubCall as call, githubFailure, octokitFor } from "../forge/octokit.js";
import {
  markedComment,
  marksIn,
  readyByLabels,
  type Tracker,
  type TrackerOptions,
} from "./tracker.js";

// Issues read per page: enough to find `max` ready ones behind taken and finished ones.
const PAGE = 50;

type Octokit = ReturnType<typeof octokitFor>;

/** The repository the calls go to. */
interface Repo {
  octokit: Octokit;
  owner: string;
  repo: string;
}

/** The open issues (not pull requests) with the ready label, oldest first, `max` at most. */
async function readyIssues(r: Repo, source: TrackerOptions["source"], max: number) {
  const { data } = await call("listing issues", () =>
    r.octokit.rest.issues.listForRepo({
      owner: r.owner,
      repo: r.repo,
      state: "open",
      ...(source.label !== undefined && { labels: source.label }),
      sort: "created",
      direction: "asc",
      per_page: PAGE,
    }),
  );
  const issues = data
    .filter((i) => i.pull_request === undefined)
    .map((i) => ({
      number: i.number,
      title: i.title,
      body: i.body,
      url: i.html_url,
      createdAt: i.created_at,
      labels: i.labels.map((l) => (typeof l === "string" ? l : (l.name ?? ""))),
    }));
  return readyByLabels(issues, source, max);
}

function addLabel(r: Repo, issue: number, label: string, doing: string) {
  return call(doing, () =>
    r.octokit.rest.issues.addLabels({
      owner: r.owner,
      repo: r.repo,
      issue_number: issue,
      labels: [label],
    }),
  );
}

async function removeLabel(r: Repo, issue: number, label: string) {
  try {
    await r.octokit.rest.issues.removeLabel({
      owner: r.owner,
      repo: r.repo,
      issue_number: issue,
      name: label,
    });
  } catch (err) {
    // Already gone (a person took it off): what releasing wants.
    if ((err as { status?: number }).status !== 404)
      throw githubFailure("unlabelling the issue", err);
  }
}

export function githubIssues({ source, token }: TrackerOptions): Tracker {
  const [owner, repo] = source.repository.split("/") as [string, string];
  const octokit = octokitFor({ apiUrl: source.apiUrl, token });
  const r: Repo = { octokit, owner, repo };
  const num = (issue: string) => Number(issue);
  return {
    ready: (max) => readyIssues(r, source, max),
    async take(issue, runId) {
      await addLabel(r, num(issue), source.workingLabel!, "labelling the issue taken");
      await this.comment(
        issue,
        markedComment("claim", runId, `Taken by autoloop-cron run \`${runId}\`.`),
      );
    },
    async marks(issue) {
      const data = await call("reading the issue's comments", () =>
        octokit.paginate(octokit.rest.issues.listComments, {
          owner,
          repo,
          issue_number: num(issue),
          per_page: 100,
        }),
      );
      return marksIn(data.map((c) => ({ body: c.body, author: c.user?.login })));
    },
    async comment(issue, body) {
      await call("commenting on the issue", () =>
        octokit.rest.issues.createComment({ owner, repo, issue_number: num(issue), body }),
      );
    },
    async issueBody(issue) {
      const { data } = await call("reading the issue", () =>
        octokit.rest.issues.get({ owner, repo, issue_number: num(issue) }),
      );
      return data.body ?? "";
    },
    async editIssueBody(issue, body) {
      await call("ticking the issue's boxes", () =>
        octokit.rest.issues.update({ owner, repo, issue_number: num(issue), body }),
      );
    },
    async release(issue, done) {
      await removeLabel(r, num(issue), source.workingLabel!);
      if (done) await addLabel(r, num(issue), source.doneLabel!, "labelling the issue done");
    },
  };
}
