// Linear's GraphQL schema, derived at test time from the official client's published types:
// @linear/sdk ships no schema.graphql (nor does any npm package), but its .d.mts holds every
// type of the API as graphql-codegen wrote it. Read with the TypeScript compiler API: an object
// type is an alias whose `__typename` names itself, `Maybe<>`/`InputMaybe<>` mark what may be
// null, `<Type><Field>Args` aliases hold a field's arguments, enums keep their GraphQL values.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { buildSchema, type GraphQLSchema } from "graphql";
import ts from "typescript";

const BUILT_IN = new Set(["ID", "String", "Boolean", "Int", "Float"]);

/** The .d.mts of the installed SDK that declares the schema's types. */
function sdkTypesFile(): string {
  const dist = dirname(createRequire(import.meta.url).resolve("@linear/sdk"));
  for (const name of readdirSync(dist).filter((n) => /^index.*\.d\.mts$/.test(n))) {
    const text = readFileSync(join(dist, name), "utf8");
    if (text.includes("\ntype Scalars = {")) return text;
  }
  throw new Error(`no schema types (type Scalars) in ${dist}: has @linear/sdk changed layout?`);
}

interface Declarations {
  aliases: Map<string, ts.TypeNode>;
  enums: Map<string, string[]>;
  scalars: string[];
}

function declarations(text: string): Declarations {
  const file = ts.createSourceFile("linear.d.mts", text, ts.ScriptTarget.Latest, true);
  const aliases = new Map<string, ts.TypeNode>();
  const enums = new Map<string, string[]>();
  for (const s of file.statements) {
    if (ts.isTypeAliasDeclaration(s)) aliases.set(s.name.text, s.type);
    if (ts.isEnumDeclaration(s))
      enums.set(
        s.name.text,
        s.members.map((m) =>
          m.initializer && ts.isStringLiteral(m.initializer)
            ? m.initializer.text
            : (m.name as ts.Identifier).text,
        ),
      );
  }
  const scalarsNode = aliases.get("Scalars");
  if (scalarsNode === undefined || !ts.isTypeLiteralNode(scalarsNode))
    throw new Error("the SDK's types declare no Scalars");
  const scalars = scalarsNode.members.map((m) => (m.name as ts.Identifier).text);
  return { aliases, enums, scalars };
}

/** The type literal and the named types an alias joins (`Node & Entity & { ... }`). */
function parts(node: ts.TypeNode): { literal?: ts.TypeLiteralNode; joins: string[] } {
  const members = ts.isIntersectionTypeNode(node) ? [...node.types] : [node];
  const literal = members.find(ts.isTypeLiteralNode);
  const joins = members.filter(ts.isTypeReferenceNode).map((r) => r.typeName.getText());
  return { ...(literal && { literal }), joins };
}

const props = (literal: ts.TypeLiteralNode | undefined) =>
  literal?.members.filter(ts.isPropertySignature) ?? [];
const nameOf = (p: ts.PropertySignature) => (p.name as ts.Identifier).text;

/** Whether an alias is an object type: its `__typename` is its own name. */
function isObject(name: string, node: ts.TypeNode): boolean {
  const t = props(parts(node).literal).find((p) => nameOf(p) === "__typename")?.type;
  return (
    t !== undefined && ts.isLiteralTypeNode(t) && (t.literal as ts.StringLiteral).text === name
  );
}

/** A TS field type as GraphQL's (`Maybe<Array<Scalars["String"]>>` → `[String!]`). */
function graphqlType(node: ts.TypeNode, named: (n: string) => void): string {
  let nullable = false;
  let t = node;
  if (ts.isTypeReferenceNode(t) && ["Maybe", "InputMaybe"].includes(t.typeName.getText())) {
    nullable = true;
    t = t.typeArguments![0]!;
  }
  let inner: string;
  if (ts.isTypeReferenceNode(t) && t.typeName.getText() === "Array")
    inner = `[${graphqlType(t.typeArguments![0]!, named)}]`;
  else if (ts.isIndexedAccessTypeNode(t)) inner = t.indexType.getText().slice(1, -1);
  else if (ts.isTypeReferenceNode(t)) inner = t.typeName.getText();
  else throw new Error(`unexpected field type ${t.getText()}`);
  if (!inner.startsWith("[")) named(inner);
  return nullable ? inner : `${inner}!`;
}

/** What each alias is: object types, unions of them, field arguments; the rest is plain. */
function kinds({ aliases }: Declarations) {
  const objects = new Set([...aliases].filter(([n, t]) => isObject(n, t)).map(([n]) => n));
  const unions = new Map<string, string[]>();
  for (const [name, node] of aliases)
    if (ts.isUnionTypeNode(node) && node.types.every((u) => objects.has(u.getText())))
      unions.set(
        name,
        node.types.map((u) => u.getText()),
      );
  // `<Type><Field>Args`, the field in codegen's Pascal case (`attachmentsForURL`: `...ForUrlArgs`).
  const args = new Map<string, ts.TypeLiteralNode>();
  for (const [n, t] of aliases)
    if (n.endsWith("Args") && !objects.has(n) && ts.isTypeLiteralNode(t))
      args.set(n.toLowerCase(), t);
  /** Neither object nor union: an interface (named from output) or an input (from arguments). */
  const isPlain = (n: string) => aliases.has(n) && !objects.has(n) && !unions.has(n);
  return { objects, unions, args, isPlain };
}

/** Visits `start` and what `visit` reaches from them, each name once. */
function walk(
  start: Iterable<string>,
  accept: (name: string) => boolean,
  visit: (name: string, reach: (name: string) => void) => void,
): void {
  const seen = new Set(start);
  const queue = [...seen];
  const reach = (n: string) => {
    if (!accept(n) || seen.has(n)) return;
    seen.add(n);
    queue.push(n);
  };
  while (queue.length > 0) visit(queue.shift()!, reach);
}

/** The SDL of every type in the SDK's declarations. */
export function linearSdl(text = sdkTypesFile()): string {
  const declared = declarations(text);
  const { objects, unions, args, isPlain } = kinds(declared);
  const fieldsOf = (name: string) => props(parts(declared.aliases.get(name)!).literal);
  const out: string[] = [];
  const inputs: string[] = [];
  // Output types: the objects, and the interfaces they join or name in their fields.
  walk(objects, isPlain, (name, reach) => {
    const { joins } = parts(declared.aliases.get(name)!);
    joins.forEach(reach);
    const fields = fieldsOf(name)
      .filter((p) => nameOf(p) !== "__typename")
      .map((p) => {
        const f = nameOf(p);
        const list = props(args.get(`${name}${f}Args`.toLowerCase())).map(
          (a) => `${nameOf(a)}: ${graphqlType(a.type!, (n) => inputs.push(n))}`,
        );
        return `  ${f}${list.length > 0 ? `(${list.join(", ")})` : ""}: ${graphqlType(p.type!, reach)}`;
      });
    const impl = joins.length > 0 ? ` implements ${joins.join(" & ")}` : "";
    const kind = objects.has(name) ? "type" : "interface";
    out.push(`${kind} ${name}${impl} {\n${fields.join("\n")}\n}`);
  });
  // Input types: what arguments name, and what those name.
  walk(inputs.filter(isPlain), isPlain, (name, reach) => {
    const fields = fieldsOf(name).map((p) => `  ${nameOf(p)}: ${graphqlType(p.type!, reach)}`);
    out.push(`input ${name} {\n${fields.join("\n")}\n}`);
  });
  for (const [name, members] of unions) out.push(`union ${name} = ${members.join(" | ")}`);
  for (const [name, values] of declared.enums)
    out.push(`enum ${name} {\n  ${values.join("\n  ")}\n}`);
  for (const s of declared.scalars) if (!BUILT_IN.has(s)) out.push(`scalar ${s}`);
  return out.join("\n\n");
}

let cached: GraphQLSchema | undefined;

/** Linear's schema as a graphql-js schema, built once per test process. */
export function linearSchema(): GraphQLSchema {
  cached ??= buildSchema(linearSdl());
  return cached;
}
