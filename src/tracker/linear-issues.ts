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

export function linearIssues({ source, token }: TrackerOptions): Tracker {
  const call = linearCaller(source, token);
  const team = source.repository;
  const stateIds = new Map<string, string>();

  /** The id of the team's workflow state `name`, read once; `key` names its setting. */
  async function stateId(name: string, key: string): Promise<string> {
    if (stateIds.size === 0) {
      const states = await call("reading the team's workflow states", (c) =>
        c.workflowStates({ filter: { team: { key: { eq: team } } }, first: 100 }),
      );
      for (const s of states.nodes) stateIds.set(s.name, s.id);
    }
    const id = stateIds.get(name);
    if (id === undefined)
      throw new Error(
        `Linear team ${team} has no workflow state "${name}": set source.linear_issues.${key} to one of ${[...stateIds.keys()].map((n) => `"${n}"`).join(", ")}`,
      );
    return id;
  }

  async function moveTo(issue: string, name: string, key: string): Promise<void> {
    const id = await stateId(name, key);
    await call(`moving the issue to "${name}"`, (c) => c.updateIssue(issue, { stateId: id }));
  }

  const toTracker = (i: LinearIssue) => ({
    id: i.id,
    ref: i.identifier,
    title: i.title,
    body: i.description ?? "",
    url: i.url,
    createdAt: i.createdAt.toISOString(),
  });

  return {
    async ready(max) {
      const found = await call("listing issues", (c) =>
        c.issues({
          filter: {
            team: { key: { eq: team } },
            state: { name: { eq: source.state! } },
            ...(source.label !== undefined && { labels: { some: { name: { eq: source.label } } } }),
          },
          sort: [{ createdAt: { order: PaginationSortOrder.Ascending } }],
          first: PAGE,
        }),
      );
      const oldestFirst = [...found.nodes].sort((a, b) => +a.createdAt - +b.createdAt);
      return oldestFirst.slice(0, max).map(toTracker);
    },
    async take(issue, runId) {
      await moveTo(issue, source.workingState!, "working_state");
      await this.comment(
        issue,
        markedComment("claim", runId, `Taken by autoloop-cron run \`${runId}\`.`),
      );
    },
    async marks(issue) {
      const comments = await call("reading the issue's comments", async (c) => {
        const page = await c.comments({
          filter: { issue: { id: { eq: issue } } },
          first: COMMENTS_PAGE,
        });
        for (let n = 1; page.pageInfo.hasNextPage && n < COMMENT_PAGES; n++) await page.fetchNext();
        return page.nodes;
      });
      const oldestFirst = [...comments].sort((a, b) => +a.createdAt - +b.createdAt);
      return marksIn(oldestFirst.map((c) => c.body));
    },
    async comment(issue, body) {
      await call("commenting on the issue", (c) => c.createComment({ issueId: issue, body }));
    },
    async release(issue, done) {
      const current = await call("reading the issue", (c) => c.issue(issue));
      // Moved on by a person (or released before a restart): its state is theirs.
      if (current.stateId !== (await stateId(source.workingState!, "working_state"))) return;
      if (done) await moveTo(issue, source.doneState!, "done_state");
      else await moveTo(issue, source.state!, "state");
    },
  };
}
