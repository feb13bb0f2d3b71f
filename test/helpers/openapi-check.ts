// Checks HTTP requests and responses against a service's published OpenAPI 3.0 document (for
// GitHub, @octokit/openapi), so a loopback forge refuses what the real service would refuse and
// never answers with what it would not send.
import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}

export class OpenApiCheck {
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
    addFormats.default(this.ajv);
    // OpenAPI 3.0's own words for a schema (ajv's `nullable` is built in).
    for (const k of ["example", "discriminator", "xml", "externalDocs"]) this.ajv.addKeyword(k);
    this.ajv.addSchema(doc, "api");
  }

  /** The object at a `#/...` reference, following references. */
  private deref<T>(value: T): T {
    let v = value as Json;
    while (typeof v?.$ref === "string") {
      const pointer = (v.$ref as string).slice(2).split("/");
      v = pointer.reduce<Json>(
        (o, key) => o[key.replace(/~1/g, "/").replace(/~0/g, "~")] as Json,
        this.doc,
      );
    }
    return v as T;
  }

  private validator(pointer: string): ValidateFunction {
    let v = this.validators.get(pointer);
    if (v === undefined) {
      v = this.ajv.getSchema(`api#${pointer}`);
      if (v === undefined) throw new Error(`no schema at ${pointer}`);
      this.validators.set(pointer, v);
    }
    return v;
  }

  private operation(method: string, template: string): Json {
    const op = (this.doc.paths as Json)[template] as Json | undefined;
    const found = op?.[method.toLowerCase()] as Json | undefined;
    if (found === undefined) throw new Error(`the API has no ${method} ${template}`);
    return found;
  }

  private errors(v: ValidateFunction, data: unknown, what: string): string[] {
    if (v(data)) return [];
    return (v.errors ?? []).slice(0, 5).map((e) => `${what}${e.instancePath} ${e.message}`);
  }

  /** Problems with a request to `template` (`/repos/{owner}/{repo}/pulls`); [] when it conforms. */
  checkRequest(method: string, template: string, query: URLSearchParams, body: unknown): string[] {
    const op = this.operation(method, template);
    const params = ((op.parameters as unknown[]) ?? []).map((p) => this.deref(p) as Parameter);
    const problems: string[] = [];
    for (const p of params.filter((x) => x.in === "query")) {
      const value = query.get(p.name);
      if (value === null) {
        if (p.required) problems.push(`query ${p.name} is required`);
        continue;
      }
      const type = p.schema?.type;
      const typed =
        type === "integer" || type === "number"
          ? Number(value)
          : type === "boolean"
            ? value === "true"
            : value;
      const v = this.ajv.compile(p.schema ?? {});
      problems.push(...this.errors(v, typed, `query ${p.name}`));
    }
    for (const name of query.keys())
      if (!params.some((p) => p.in === "query" && p.name === name))
        problems.push(`query ${name} is not a parameter`);
    const requestBody = this.deref(op.requestBody as Json | undefined);
    if (requestBody === undefined) return problems;
    if (body === undefined)
      return requestBody.required ? [...problems, "a body is required"] : problems;
    const pointer = `/paths/${esc(template)}/${method.toLowerCase()}/requestBody/content/application~1json/schema`;
    return [...problems, ...this.errors(this.validator(pointer), body, "body")];
  }

  /** Problems with a response the API documents for the operation; [] when it conforms. */
  checkResponse(method: string, template: string, status: number, body: unknown): string[] {
    const op = this.operation(method, template);
    const responses = op.responses as Json;
    const spec = responses[String(status)] as Json | undefined;
    if (spec === undefined) return [`status ${status} is not documented for ${method} ${template}`];
    let pointer = `/paths/${esc(template)}/${method.toLowerCase()}/responses/${status}`;
    if (typeof spec.$ref === "string") pointer = (spec.$ref as string).slice(1);
    const content = (this.deref(spec).content as Json | undefined)?.["application/json"];
    if (content === undefined) return [];
    return this.errors(
      this.validator(`${pointer}/content/application~1json/schema`),
      body,
      `${status} body`,
    );
  }

  /** Problems with `body` as the component schema `name` (`#/components/schemas/<name>`). */
  checkSchema(name: string, body: unknown): string[] {
    return this.errors(this.validator(`/components/schemas/${name}`), body, name);
  }

  /** The API's documented example `name` (`#/components/examples/<name>`), a fresh copy. */
  example(name: string): Json {
    const examples = (this.doc.components as Json).examples as Json;
    return structuredClone((examples[name] as Json).value as Json);
  }
}

const esc = (template: string) =>
  template.replace(/~/g, "~0").replace(/\//g, "~1").replace(/\{/g, "%7B").replace(/\}/g, "%7D");
