// A loopback GitHub REST API for the calls the daemon makes, pull requests and reviews here and
// issues in fake-github-issues.ts, every request and answer checked against GitHub's published
// OpenAPI document (@octokit/openapi); answers are built from the document's own examples.
// Tests script failures and close or merge pulls.
import { FakeGitHubIssues, ISSUE_ROUTES } from "./fake-github-issues.js";
import {
  type Answer,
  type Call,
  type Json,
  openApi,
  routes,
  validationError,
} from "./fake-github-server.js";

export type { FakeIssue } from "./fake-github-issues.js";

export interface FakePull {
  number: number;
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
  state: "open" | "closed";
  merged: boolean;
  labels: string[];
  reviewers: string[];
  /** The head's commit and repository (`owner/name`; another one: a fork's pull request). */
  headSha?: string;
  headRepository?: string;
}

export interface FakeReview {
  id: number;
  pull: number;
  body: string;
  event: string;
  /** Another user's review: the token cannot edit it. */
  user?: string;
}

export class FakeGitHub extends FakeGitHubIssues {
  readonly pulls: FakePull[] = [];
  readonly reviews: FakeReview[] = [];
  protected override readonly routes = [
    ...ISSUE_ROUTES,
    ...routes([
      ["GET", "/repos/{owner}/{repo}/pulls"],
      ["POST", "/repos/{owner}/{repo}/pulls"],
      ["PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}"],
      ["POST", "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers"],
      ["GET", "/repos/{owner}/{repo}/pulls/{pull_number}"],
      ["GET", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"],
      ["POST", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"],
      ["PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}"],
    ]),
  ];

  protected override answer(call: Call): Answer {
    const { route, query, body } = call;
    const [n, id] = call.params.map(Number);
    if (route.template.includes("/reviews")) return this.reviewAnswer(route.method, body, n!, id!);
    // Issues and pulls are numbered apart here: labels go to an issue of the number if any.
    const pullLabels =
      route.template.endsWith("/labels") && !this.issues.some((i) => i.number === n);
    return route.template.includes("/pulls") || pullLabels
      ? this.pullAnswer(route.method, route.template, query, body, n!)
      : super.answer(call);
  }

  private pullAnswer(
    method: string,
    template: string,
    query: URLSearchParams,
    body: Json | undefined,
    n: number,
  ) {
    const pull = this.pulls.find((p) => p.number === n);
    if (template.endsWith("/pulls") && method === "GET") {
      const [owner, head] = (query.get("head") ?? ":").split(":");
      const found = this.pulls.filter(
        (p) =>
          (query.get("state") ?? "open") === (p.state === "open" ? "open" : "closed") &&
          (query.get("head") === null || (owner === this.owner && p.head === head)) &&
          (query.get("base") === null || p.base === query.get("base")),
      );
      return { status: 200, answer: found.map((p) => this.pullJson(p, "pull-request-simple")) };
    }
    if (template.endsWith("/pulls")) {
      const b = body as {
        head: string;
        base: string;
        title: string;
        body?: string;
        draft?: boolean;
      };
      if (this.pulls.some((p) => p.state === "open" && p.head === b.head && p.base === b.base))
        return {
          status: 422,
          answer: validationError(`A pull request already exists for ${this.owner}:${b.head}.`),
        };
      const created: FakePull = {
        number: this.pulls.length + 1,
        head: b.head,
        base: b.base,
        title: b.title,
        body: b.body ?? "",
        draft: b.draft ?? false,
        state: "open",
        merged: false,
        labels: [],
        reviewers: [],
      };
      this.pulls.push(created);
      return { status: 201, answer: this.pullJson(created, "pull-request") };
    }
    if (pull === undefined) return { status: 422, answer: validationError("no such pull request") };
    if (method === "GET") return { status: 200, answer: this.pullJson(pull, "pull-request") };
    if (template.endsWith("/labels")) {
      // GitHub adds a label once, however often it is asked.
      const asked = (body as { labels: string[] }).labels ?? [];
      pull.labels.push(
        ...asked.filter((l, i) => !pull.labels.includes(l) && asked.indexOf(l) === i),
      );
      const example = openApi().example("label-items") as unknown as Json[];
      return {
        status: 200,
        answer: pull.labels.map((name, i) => ({ ...example[0], id: i + 1, name })),
      };
    }
    if (template.endsWith("/requested_reviewers")) {
      const asked = (body as { reviewers: string[] }).reviewers ?? [];
      pull.reviewers.push(...asked.filter((r) => !pull.reviewers.includes(r)));
      return { status: 201, answer: this.pullJson(pull, "pull-request-simple") };
    }
    const b = body as { title?: string; body?: string };
    if (b.title !== undefined) pull.title = b.title;
    if (b.body !== undefined) pull.body = b.body;
    return { status: 200, answer: this.pullJson(pull, "pull-request") };
  }

  /** The reviews of a pull request: listed, posted (a summary, no line comments), edited. */
  private reviewAnswer(method: string, body: Json | undefined, n: number, id: number) {
    if (!this.pulls.some((p) => p.number === n))
      return { status: 404, answer: { message: "Not Found", documentation_url: "" } };
    const json = (r: FakeReview) => ({
      ...openApi().example("pull-request-review"),
      id: r.id,
      node_id: `PRR_${r.id}`,
      body: r.body,
      state: "COMMENTED",
      html_url: `https://github.example/${this.owner}/${this.repo}/pull/${n}#pullrequestreview-${r.id}`,
      pull_request_url: `${this.url}/repos/${this.owner}/${this.repo}/pulls/${n}`,
    });
    if (method === "GET")
      return { status: 200, answer: this.reviews.filter((r) => r.pull === n).map(json) };
    const b = body as { body?: string; event?: string };
    if (method === "POST") {
      const review = {
        id: 80 + this.reviews.length,
        pull: n,
        body: b.body ?? "",
        event: b.event ?? "",
      };
      this.reviews.push(review);
      return { status: 200, answer: json(review) };
    }
    const review = this.reviews.find((r) => r.pull === n && r.id === id);
    if (review === undefined)
      return { status: 404, answer: { message: "Not Found", documentation_url: "" } };
    if (review.user !== undefined)
      return {
        status: 422,
        // This route's 422 lists its errors as plain strings.
        answer: { ...validationError("Unprocessable Entity"), errors: ["not the token's review"] },
      };
    review.body = b.body ?? review.body;
    return { status: 200, answer: json(review) };
  }

  /** The document's example of a pull request, made this one. */
  private pullJson(p: FakePull, example: "pull-request" | "pull-request-simple"): Json {
    const json = openApi().example(example);
    const html = `https://github.example/${this.owner}/${this.repo}/pull/${p.number}`;
    const side = (ref: string, sideJson: unknown, repository: string, sha?: string) => ({
      ...(sideJson as Json),
      ref,
      label: `${repository.split("/")[0]}:${ref}`,
      ...(sha !== undefined && { sha }),
      repo: { ...((sideJson as Json).repo as Json), full_name: repository },
    });
    const here = `${this.owner}/${this.repo}`;
    return {
      ...json,
      number: p.number,
      id: 1000 + p.number,
      html_url: html,
      url: `${this.url}/repos/${this.owner}/${this.repo}/pulls/${p.number}`,
      state: p.state,
      title: p.title,
      body: p.body,
      draft: p.draft,
      ...(example === "pull-request" && { merged: p.merged }),
      // The document's own example lists a team without the `type` its schema requires.
      requested_teams: [],
      head: side(p.head, json.head, p.headRepository ?? here, p.headSha),
      base: side(p.base, json.base, here),
    };
  }
}
