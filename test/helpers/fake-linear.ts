// A loopback Linear: a real GraphQL server over Linear's schema as derived from @linear/sdk's
// published types (linear-schema.ts). Each request is parsed and validated against it (refused
// with GraphQL errors, and noted in `problems`, otherwise) and executed with resolvers over an
// in-memory store, so every answer has the shape the schema gives; fields the store does not
// hold answer as the schema's type allows (null, or an empty value of the non-null type).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  execute,
  type GraphQLFieldResolver,
  type GraphQLOutputType,
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  parse,
  validate,
} from "graphql";
import { linearSchema } from "./linear-schema.js";
import { closeLoopback, listenLoopback, requestText } from "./loopback.js";

type Json = Record<string, unknown>;

export interface FakeLinearState {
  id: string;
  name: string;
  type: string;
  team: FakeLinearTeam;
}
interface FakeLinearTeam {
  id: string;
  key: string;
  name: string;
}
export interface FakeLinearUser {
  id: string;
  name: string;
}
export interface FakeLinearComment {
  id: string;
  body: string;
  createdAt: string;
  issue: FakeLinearIssue;
  /** Who wrote it: the API key's user for comments created through the API. */
  user: FakeLinearUser;
}
export interface FakeLinearIssue {
  id: string;
  identifier: string;
  number: number;
  title: string;
  description: string;
  url: string;
  createdAt: string;
  team: FakeLinearTeam;
  state: FakeLinearState;
  labels: Array<{ id: string; name: string }>;
  comments: FakeLinearComment[];
}

const STATES = [
  ["Backlog", "backlog"],
  ["Todo", "unstarted"],
  ["In Progress", "started"],
  ["In Review", "started"],
  ["Done", "completed"],
] as const;

// The filter words the store understands; a request using others is noted as a problem.
const COMPARATORS = new Set(["eq", "neq", "in", "nin"]);

/** The empty value of a non-null type the store holds nothing for. */
function emptyOf(type: GraphQLOutputType): unknown {
  if (!isNonNullType(type)) return null;
  const inner = type.ofType;
  if (isListType(inner)) return [];
  if (isEnumType(inner)) return inner.getValues()[0]!.value;
  if (isScalarType(inner)) {
    const empty: Record<string, unknown> = { Boolean: false, Int: 0, Float: 0, ID: "0" };
    if (inner.name === "DateTime") return "2026-01-01T00:00:00.000Z";
    return empty[inner.name] ?? (inner.name.startsWith("JSON") ? {} : "");
  }
  // An object's own fields resolve the same way; an interface or union as its first type.
  return isObjectType(inner) ? {} : { __typename: "" };
}

export class FakeLinear {
  readonly issues: FakeLinearIssue[] = [];
  readonly states: FakeLinearState[];
  readonly problems: string[] = [];
  url = "";
  /** The API key's user: the author of every comment created through the API. */
  readonly user: FakeLinearUser;
  private readonly team: FakeLinearTeam;
  private readonly server = createServer((req, res) => void this.handle(req, res));
  private ids = 0;

  constructor(
    teamKey: string,
    private readonly apiKey: string,
  ) {
    this.team = { id: this.id(), key: teamKey, name: `Team ${teamKey}` };
    this.user = this.addUser("autoloop-bot");
    this.states = STATES.map(([name, type]) => ({ id: this.id(), name, type, team: this.team }));
  }

  async start(): Promise<this> {
    this.url = `${await listenLoopback(this.server)}/graphql`;
    return this;
  }

  close(): Promise<void> {
    return closeLoopback(this.server);
  }

  state(name: string): FakeLinearState {
    return this.states.find((s) => s.name === name)!;
  }

  add(title: string, description: string, state = "Todo", labels: string[] = []): FakeLinearIssue {
    const number = this.issues.length + 1;
    const issue: FakeLinearIssue = {
      id: this.id(),
      identifier: `${this.team.key}-${number}`,
      number,
      title,
      description,
      url: `https://linear.app/acme/issue/${this.team.key}-${number}`,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, number)).toISOString(),
      team: this.team,
      state: this.state(state),
      labels: labels.map((name) => ({ id: this.id(), name })),
      comments: [],
    };
    this.issues.push(issue);
    return issue;
  }

  /** Another member of the workspace. */
  addUser(name: string): FakeLinearUser {
    return { id: this.id(), name };
  }

  /** A comment written by `user`, as any member may, `createdAt` after the issue's others. */
  plantComment(issue: FakeLinearIssue, body: string, user: FakeLinearUser): FakeLinearComment {
    const createdAt = new Date(Date.parse(issue.createdAt) + 1000 * issue.comments.length);
    const comment = { id: this.id(), body, issue, user, createdAt: createdAt.toISOString() };
    issue.comments.push(comment);
    return comment;
  }

  /** The bodies of an issue's comments, oldest first. */
  commentsOf(issue: FakeLinearIssue): string[] {
    return issue.comments.map((c) => c.body);
  }

  private id(): string {
    this.ids += 1;
    return `00000000-0000-4000-8000-${String(this.ids).padStart(12, "0")}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
    };
    const body = JSON.parse(await requestText(req)) as Json;
    if (req.headers.authorization !== this.apiKey)
      return send(401, {
        errors: [
          {
            message: "Authentication required, not authenticated",
            extensions: { type: "authentication error", code: "AUTHENTICATION_ERROR" },
          },
        ],
      });
    const schema = linearSchema();
    let document: ReturnType<typeof parse>;
    try {
      document = parse(String(body.query));
    } catch (err) {
      this.problems.push(`unparsable query: ${(err as Error).message}`);
      return send(400, { errors: [{ message: (err as Error).message }] });
    }
    const invalid = validate(schema, document);
    if (invalid.length > 0) {
      this.problems.push(...invalid.map((e) => `invalid request: ${e.message}`));
      return send(400, { errors: invalid.map((e) => ({ message: e.message })) });
    }
    const result = await execute({
      schema,
      document,
      rootValue: this.root(),
      variableValues: (body.variables ?? {}) as Json,
      fieldResolver: this.resolve,
      typeResolver: (value, _ctx, info, type) =>
        String((value as Json).__typename || info.schema.getPossibleTypes(type)[0]!.name),
    });
    for (const e of result.errors ?? []) this.problems.push(`answer: ${e.message}`);
    send(200, result);
  }

  /** A field's value: the store's (a function is called with the arguments), else empty. */
  private readonly resolve: GraphQLFieldResolver<unknown, unknown> = (source, args, _c, info) => {
    const value = (source as Json)[info.fieldName];
    if (typeof value === "function") return value.call(source, args);
    const root = info.parentType.name === "Query" || info.parentType.name === "Mutation";
    if (root && value === undefined) this.problems.push(`${info.fieldName} is not served`);
    if (value === undefined) return emptyOf(info.returnType);
    if (Array.isArray(value) && getNamedType(info.returnType).name.endsWith("Connection"))
      return this.connection(value, args);
    return value;
  };

  private root(): Json {
    const comments = () => this.issues.flatMap((i) => i.comments);
    const find = (id: string) => this.issues.find((i) => i.id === id || i.identifier === id);
    return {
      issues: (a: Json) => this.connection(this.sorted(this.filtered(this.issues, a.filter), a), a),
      issue: (a: Json) => find(String(a.id)) ?? null,
      comments: (a: Json) => this.connection(this.filtered(comments(), a.filter), a),
      workflowStates: (a: Json) => this.connection(this.filtered(this.states, a.filter), a),
      commentCreate: ({ input }: { input: Json }) => {
        const issue = find(String(input.issueId));
        if (issue === undefined) throw new Error(`Entity not found: Issue ${input.issueId}`);
        const comment = this.plantComment(issue, String(input.body), this.user);
        return { success: true, lastSyncId: this.ids, comment };
      },
      issueUpdate: ({ id, input }: { id: string; input: Json }) => {
        const issue = find(id);
        if (issue === undefined) throw new Error("Entity not found: Issue");
        for (const k of Object.keys(input))
          if (k !== "stateId" && k !== "description")
            this.problems.push(`issueUpdate: ${k} is not served`);
        if (input.stateId !== undefined) {
          const state = this.states.find((s) => s.id === input.stateId);
          if (state === undefined) throw new Error("Entity not found: WorkflowState");
          issue.state = state;
        }
        if (typeof input.description === "string") issue.description = input.description;
        return { success: true, lastSyncId: this.ids, issue };
      },
    };
  }

  /** Nodes as a connection, `first` of them after the `after` cursor (a node's id). */
  private connection(all: readonly unknown[], args: Json): Json {
    const from =
      args.after === undefined ? 0 : all.findIndex((n) => (n as Json).id === args.after) + 1;
    const first = typeof args.first === "number" ? args.first : 50;
    const nodes = all.slice(from, from + first);
    const cursor = (n: unknown) => String((n as Json).id);
    return {
      nodes,
      edges: nodes.map((node) => ({ node, cursor: cursor(node) })),
      pageInfo: {
        hasNextPage: from + first < all.length,
        hasPreviousPage: from > 0,
        startCursor: nodes.length > 0 ? cursor(nodes[0]) : null,
        endCursor: nodes.length > 0 ? cursor(nodes.at(-1)) : null,
      },
    };
  }

  private sorted<T>(items: T[], args: Json): T[] {
    const sort = (args.sort ?? []) as Array<{ createdAt?: { order?: string } }>;
    const order = sort[0]?.createdAt?.order;
    if (order === undefined) return items;
    const by = (a: T, b: T) =>
      String((a as Json).createdAt).localeCompare(String((b as Json).createdAt));
    return [...items].sort((a, b) => (order === "Descending" ? by(b, a) : by(a, b)));
  }

  private filtered<T>(items: T[], filter: unknown): T[] {
    return filter === undefined || filter === null
      ? items
      : items.filter((i) => this.matches(i, filter as Json));
  }

  /** Whether a stored value matches a Linear filter (comparators, `some`, nested entities). */
  private matches(value: unknown, filter: Json): boolean {
    return Object.entries(filter).every(([k, want]) => {
      if (COMPARATORS.has(k)) {
        const list = want as unknown[];
        if (k === "eq") return value === want;
        if (k === "neq") return value !== want;
        return k === "in" ? list.includes(value) : !list.includes(value);
      }
      if (k === "some") return (value as unknown[]).some((v) => this.matches(v, want as Json));
      const field = (value as Json | undefined)?.[k];
      if (field === undefined) {
        this.problems.push(`filter on ${k} is not served`);
        return false;
      }
      return this.matches(field, want as Json);
    });
  }
}
