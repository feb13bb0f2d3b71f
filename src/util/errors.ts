// Errors a person can act on: bad input names the file, the field, what was found and the fix.
import type * as z from "zod/v4/core";

/** An error caused by the user's input or environment, shown without a stack trace. */
export class UserError extends Error {
  constructor(
    message: string,
    /** Process exit code the CLI should use. */
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = "UserError";
  }
}

/** One problem with one field of one file. */
export interface FieldProblem {
  file: string;
  /** Dotted path such as `schedule[2].cron`; empty for the whole file. */
  field: string;
  found: string;
  expected: string;
}

export function formatProblem(p: FieldProblem): string {
  const where = p.field === "" ? p.file : `${p.file}: ${p.field}`;
  return `${where}: found ${p.found}; expected ${p.expected}`;
}

/** A set of field problems, usually from one file. */
export class ValidationError extends UserError {
  constructor(readonly problems: FieldProblem[]) {
    super(problems.map(formatProblem).join("\n"));
    this.name = "ValidationError";
  }
}

/** Renders a value found in a file for an error message, briefly. */
export function describeFound(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    text =
      typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Formats a path of keys and indexes as `a.b[2].c`. */
export function formatPath(path: ReadonlyArray<PropertyKey>, prefix = ""): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

function valueAt(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let cur: unknown = input;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key as string];
  }
  return cur;
}

function expectedText(issue: z.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === "undefined" ? "no such key" : `a ${issue.expected}`;
    case "invalid_value":
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "unrecognized_keys":
      return "only known keys (check the spelling)";
    case "too_small":
      return `at least ${String(issue.minimum)}${issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : ""}`;
    case "too_big":
      return `at most ${String(issue.maximum)}${issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : ""}`;
    default:
      return issue.message;
  }
}

/** Turns zod issues into field problems, reading the offending values from `input`. */
export function zodProblems(
  file: string,
  error: { readonly issues: readonly z.$ZodIssue[] },
  input: unknown,
  pathPrefix = "",
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        problems.push({
          file,
          field: formatPath([...issue.path, key], pathPrefix),
          found: `unknown key ${JSON.stringify(key)}`,
          expected: expectedText(issue),
        });
      }
      continue;
    }
    problems.push({
      file,
      field: formatPath(issue.path, pathPrefix),
      found: describeFound(valueAt(input, issue.path)),
      expected: expectedText(issue),
    });
  }
  return problems;
}

/** An error as one line: `CODE: message` for a system error ("ENOSPC: no space left..."). */
export function errorText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code !== undefined)
    return e.message.startsWith(e.code) ? e.message : `${e.code}: ${e.message}`;
  return err instanceof Error ? err.message : String(err);
}
