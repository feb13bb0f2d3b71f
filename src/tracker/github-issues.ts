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

export function githubIssues({ source, token }: TrackerOptions): Tracker {
  const [owner, repo] = source.repository.split("/") as [string, string];
  const octokit = octokitFor({ apiUrl: source.apiUrl, token });
  const num = (issue: string) => Number(issue);
  return {
    async ready(max) {
      const { data } = await call("listing issues", () =>
        octokit.rest.issues.listForRepo({
          owner,
          repo,
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
    },
    async take(issue, runId) {
      await call("labelling the issue taken", () =>
        octokit.rest.issues.addLabels({
          owner,
          repo,
          issue_number: num(issue),
          labels: [source.workingLabel!],
        }),
      );
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
      try {
        await octokit.rest.issues.removeLabel({
          owner,
          repo,
          issue_number: num(issue),
          name: source.workingLabel!,
        });
      } catch (err) {
        // Already gone (a person took it off): what releasing wants.
        if ((err as { status?: number }).status !== 404)
          throw githubFailure("unlabelling the issue", err);
      }
      if (done)
        await call("labelling the issue done", () =>
          octokit.rest.issues.addLabels({
            owner,
            repo,
            issue_number: num(issue),
            labels: [source.doneLabel!],
          }),
        );
    },
  };
}
