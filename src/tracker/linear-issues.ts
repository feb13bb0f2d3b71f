// Linear issues through @linear/sdk: ready issues are the team's in `state` (with `label`, when
// set), oldest first; a taken one moves to `working_state` and gets a claim comment; at its
// run's end it moves to `done_state`, or back to `state` to be taken again.
import { type LinearClient, PaginationSortOrder } from "@linear/sdk";
import { linearCaller } from "./linear-client.js";
import { markedComment, marksIn, type Tracker, type TrackerOptions } from "./tracker.js";

// Issues read per page: enough to find `max` ready ones behind those other slots claimed.
const PAGE = 50;
// Comments read per page, and pages at most: the claim marks are among an issue's first.
const COMMENTS_PAGE = 100;
const COMMENT_PAGES = 10;

type LinearIssue = Awaited<ReturnType<LinearClient["issue"]>>;

type Call = ReturnType<typeof linearCaller>;
type Source = TrackerOptions["source"];

/**
 * The ids of the three states the schedule names. All are checked at once: a state the team
 * lacks fails the first take, not the follow-up of a finished run.
 */
async function readWorkflow(call: Call, source: Source) {
  const team = source.repository;
  const states = await call("reading the team's workflow states", (c) =>
    c.workflowStates({ filter: { team: { key: { eq: team } } }, first: 100 }),
  );
  const ids = new Map(states.nodes.map((s) => [s.name, s.id]));
  const idOf = (name: string, key: string) => {
    const id = ids.get(name);
    if (id !== undefined) return id;
    const names = [...ids.keys()].map((n) => `"${n}"`).join(", ");
    throw new Error(
      `Linear team ${team} has no workflow state "${name}": set source.linear_issues.${key} to one of ${names}`,
    );
  };
  return {
    ready: idOf(source.state!, "state"),
    working: idOf(source.workingState!, "working_state"),
    done: idOf(source.doneState!, "done_state"),
  };
}

const toTracker = (i: LinearIssue) => ({
  id: i.id,
  ref: i.identifier,
  title: i.title,
  body: i.description ?? "",
  url: i.url,
  createdAt: i.createdAt.toISOString(),
});

/** The team's issues in the ready state (and label), oldest first, `max` at most. */
async function readyIssues(call: Call, source: Source, max: number) {
  const found = await call("listing issues", (c) =>
    c.issues({
      filter: {
        team: { key: { eq: source.repository } },
        state: { name: { eq: source.state! } },
        ...(source.label !== undefined && { labels: { some: { name: { eq: source.label } } } }),
      },
      sort: [{ createdAt: { order: PaginationSortOrder.Ascending } }],
      first: PAGE,
    }),
  );
  const oldestFirst = [...found.nodes].sort((a, b) => +a.createdAt - +b.createdAt);
  return oldestFirst.slice(0, max).map(toTracker);
}

/** The daemon's marks among the issue's comments, oldest first. */
async function claimMarks(call: Call, issue: string) {
  const comments = await call("reading the issue's comments", async (c) => {
    const page = await c.comments({
      filter: { issue: { id: { eq: issue } } },
      first: COMMENTS_PAGE,
    });
    for (let n = 1; page.pageInfo.hasNextPage && n < COMMENT_PAGES; n++) await page.fetchNext();
    return page.nodes;
  });
  const oldestFirst = [...comments].sort((a, b) => +a.createdAt - +b.createdAt);
  // `userId` comes with the comment (no request of its own); an integration's has none.
  return marksIn(oldestFirst.map((c) => ({ body: c.body, author: c.userId })));
}

export function linearIssues({ source, token }: TrackerOptions): Tracker {
  const call = linearCaller(source, token);
  let workflow: Promise<Record<"ready" | "working" | "done", string>> | undefined;

  const states = async () => {
    workflow ??= readWorkflow(call, source);
    try {
      return await workflow;
    } catch (err) {
      workflow = undefined; // read again next time
      throw err;
    }
  };

  const moveTo = (issue: string, stateId: string, name: string) =>
    call(`moving the issue to "${name}"`, (c) => c.updateIssue(issue, { stateId }));

  return {
    ready: (max) => readyIssues(call, source, max),
    async take(issue, runId) {
      await moveTo(issue, (await states()).working, source.workingState!);
      await this.comment(
        issue,
        markedComment("claim", runId, `Taken by autoloop-cron run \`${runId}\`.`),
      );
    },
    marks: (issue) => claimMarks(call, issue),
    async comment(issue, body) {
      await call("commenting on the issue", (c) => c.createComment({ issueId: issue, body }));
    },
    async issueBody(issue) {
      const current = await call("reading the issue", (c) => c.issue(issue));
      return current.description ?? "";
    },
    async editIssueBody(issue, body) {
      await call("editing the issue's description", (c) =>
        c.updateIssue(issue, { description: body }),
      );
    },
    async release(issue, done) {
      const current = await call("reading the issue", (c) => c.issue(issue));
      const ids = await states();
      // Moved on by a person (or released before a restart): its state is theirs.
      if (current.stateId !== ids.working) return;
      if (done) await moveTo(issue, ids.done, source.doneState!);
      else await moveTo(issue, ids.ready, source.state!);
    },
  };
}
