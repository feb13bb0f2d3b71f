// GitLab issues (gitlab.com or a self-managed instance) through Gitbeaker: ready issues carry
// the schedule's label; a taken one the working label and a claim note.
import { gitlabCall as call, gitlabClient } from "../forge/gitbeaker.js";
import {
  markedComment,
  marksIn,
  readyByLabels,
  type Tracker,
  type TrackerOptions,
} from "./tracker.js";

// Issues read per page: enough to find `max` ready ones behind taken and finished ones.
const PAGE = 50;

export function gitlabIssues({ source, token }: TrackerOptions): Tracker {
  const api = gitlabClient({ apiUrl: source.apiUrl, token });
  const projectId = source.repository;
  const comment = (issue: string, body: string) =>
    call("commenting on the issue", () => api.IssueNotes.create(projectId, Number(issue), body));
  return {
    async ready(max) {
      const found = await call("listing issues", () =>
        api.Issues.all({
          projectId,
          state: "opened",
          ...(source.label !== undefined && { labels: source.label }),
          orderBy: "created_at",
          sort: "asc",
          perPage: PAGE,
          maxPages: 1,
        }),
      );
      const issues = found.map((i) => ({
        number: i.iid,
        title: i.title,
        body: i.description,
        url: i.web_url,
        createdAt: i.created_at,
        labels: i.labels as string[],
      }));
      return readyByLabels(issues, source, max);
    },
    async take(issue, runId) {
      await call("labelling the issue taken", () =>
        api.Issues.edit(projectId, Number(issue), { addLabels: source.workingLabel! }),
      );
      await comment(
        issue,
        markedComment("claim", runId, `Taken by autoloop-cron run \`${runId}\`.`),
      );
    },
    async marks(issue) {
      const notes = await call("reading the issue's notes", () =>
        api.IssueNotes.all(projectId, Number(issue), { sort: "asc", orderBy: "created_at" }),
      );
      return marksIn(notes.map((n) => ({ body: n.body, author: n.author?.username })));
    },
    async comment(issue, body) {
      await comment(issue, body);
    },
    async issueBody(issue) {
      const found = await call("reading the issue", () =>
        api.Issues.show(Number(issue), { projectId }),
      );
      return found.description ?? "";
    },
    async editIssueBody(issue, body) {
      await call("ticking the issue's boxes", () =>
        api.Issues.edit(projectId, Number(issue), { description: body }),
      );
    },
    async release(issue, done) {
      // One edit: a label already gone is no error on GitLab.
      await call("relabelling the issue", () =>
        api.Issues.edit(projectId, Number(issue), {
          removeLabels: source.workingLabel!,
          ...(done && { addLabels: source.doneLabel! }),
        }),
      );
    },
  };
}
