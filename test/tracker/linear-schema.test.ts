// Linear's schema as derived from @linear/sdk's published types: the types, fields and
// arguments our calls use come out as Linear documents them, and the SDK's own documents (every
// query and mutation it can send) validate against it.

import { LinearDocument } from "@linear/sdk";
import { type GraphQLObjectType, getNamedType, parse, printType, validate } from "graphql";
import { describe, expect, it } from "vitest";
import { linearSchema } from "../helpers/linear-schema.js";

const field = (type: string, name: string) =>
  (linearSchema().getType(type) as GraphQLObjectType).getFields()[name]!;

describe("Linear's schema, derived from the SDK's types", () => {
  it("has the fields and arguments the tracker uses, nullable where Linear says", () => {
    const issues = field("Query", "issues");
    expect(String(issues.type)).toBe("IssueConnection!");
    expect(Object.fromEntries(issues.args.map((a) => [a.name, String(a.type)]))).toMatchObject({
      filter: "IssueFilter",
      first: "Int",
      sort: "[IssueSortInput!]",
      orderBy: "PaginationOrderBy",
    });
    expect(String(field("Issue", "identifier").type)).toBe("String!");
    expect(String(field("Issue", "description").type)).toBe("String");
    expect(String(field("Mutation", "commentCreate").type)).toBe("CommentPayload!");
    expect(String(field("Mutation", "issueUpdate").args[0]!.type)).toBe("String!");
    expect(printType(linearSchema().getType("PaginationSortOrder")!)).toContain("Ascending");
    const issue = linearSchema().getType("Issue") as GraphQLObjectType;
    expect(issue.getInterfaces().map((i) => i.name)).toContain("Node");
    expect(getNamedType(field("IssueFilter" as never, "team").type).name).toBe("TeamFilter");
  });

  it("validates every document the SDK sends", () => {
    const all: Record<string, unknown> = LinearDocument;
    const documents = Object.keys(all)
      .filter((n) => n.endsWith("Document"))
      .map((n) => [n, String(all[n])] as const);
    expect(documents.length).toBeGreaterThan(100);
    const invalid = documents.flatMap(([name, doc]) =>
      validate(linearSchema(), parse(doc)).map((e) => `${name}: ${e.message}`),
    );
    expect(invalid).toEqual([]);
    // A document Linear would refuse is refused here too.
    const wrong = validate(linearSchema(), parse('{ issues(first: "x") { nodes { idd } } }'));
    expect(wrong.map((e) => e.message)).toEqual([
      expect.stringContaining('Int cannot represent non-integer value: "x"'),
      expect.stringContaining('Cannot query field "idd" on type "Issue"'),
    ]);
  });
});
