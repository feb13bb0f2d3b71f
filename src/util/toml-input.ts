// Reading the TOML files people write (config, schedules, presets): syntax errors with
// line and column, zod issues as field problems, unknown keys with the nearest known key.
import { parse, TomlError } from "smol-toml";
import type * as z from "zod/v4/core";
import { type FieldProblem, formatPath, zodProblems } from "./errors.js";

export type TomlText =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; problem: FieldProblem };

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The offset of the first byte that breaks UTF-8 (for the message; decoding already failed). */
function firstBadByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const need =
      b < 0x80
        ? 0
        : b >= 0xc2 && b <= 0xdf
          ? 1
          : b >= 0xe0 && b <= 0xef
            ? 2
            : b >= 0xf0 && b <= 0xf4
              ? 3
              : -1;
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
    }
    i += need + 1;
  }
  return bytes.length;
}

/**
 * TOML files must be UTF-8 (the TOML spec): decoding replaces nothing, and a file that is not
 * UTF-8 is one problem naming the line and byte, instead of U+FFFD in a value.
 */
export function decodeUtf8(
  file: string,
  bytes: Uint8Array,
): { ok: true; text: string } | { ok: false; problem: FieldProblem } {
  try {
    return { ok: true, text: strictUtf8.decode(bytes) };
  } catch {
    const at = firstBadByte(bytes);
    const line = bytes.subarray(0, at).filter((b) => b === 0x0a).length + 1;
    return {
      ok: false,
      problem: {
        file,
        field: `line ${line}`,
        found: `bytes that are not UTF-8 (byte ${at} of the file)`,
        expected:
          "a UTF-8 text file, as TOML requires (convert it, e.g. `iconv -f latin1 -t utf-8`)",
      },
    };
  }
}

/** `parseTomlText` of a file's bytes, which must be UTF-8. */
export function parseTomlBytes(file: string, bytes: Uint8Array): TomlText {
  const decoded = decodeUtf8(file, bytes);
  return decoded.ok ? parseTomlText(file, decoded.text) : decoded;
}

/** Parses TOML text; a syntax error becomes one problem naming the line and column. */
export function parseTomlText(file: string, text: string): TomlText {
  try {
    return { ok: true, value: parse(text) as Record<string, unknown> };
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const reason = err.message.split("\n")[0]!.replace(/^Invalid TOML document: /, "");
    // smol-toml meets the newline of a string left open and calls it a control character.
    const line = text.split("\n")[err.line - 1] ?? "";
    const unterminated =
      /control characters are not allowed in strings/.test(reason) &&
      err.column - 1 >= line.replace(/\r$/, "").length;
    if (unterminated)
      return {
        ok: false,
        problem: {
          file,
          field: `line ${err.line}`,
          found: "a string that is not closed on its line",
          expected:
            'a closing quote (") before the end of the line, or """ for a multi-line string',
        },
      };
    return {
      ok: false,
      problem: {
        file,
        field: `line ${err.line}, column ${err.column}`,
        found: `invalid TOML (${reason})`,
        expected: "valid TOML syntax",
      },
    };
  }
}

/** `parseTomlText` of a file's text, or of its bytes (which must be UTF-8). */
export function parseToml(file: string, text: string | Uint8Array): TomlText {
  return typeof text === "string" ? parseTomlText(file, text) : parseTomlBytes(file, text);
}

/** Turns a failed parse of `input` by `schema` into field problems, with spelling hints. */
export function schemaProblems(
  file: string,
  schema: z.$ZodType,
  error: z.$ZodError,
  input: unknown,
  pathPrefix = "",
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      // One problem per key from zodProblems, with the nearest known key as the hint.
      const known = knownKeysAt(schema, issue.path, input);
      const perKey = zodProblems(file, { issues: [issue] }, input, pathPrefix);
      perKey.forEach((p, i) => {
        problems.push({ ...p, expected: unknownKeyHint(issue.keys[i]!, known) });
      });
    } else if (issue.code === "invalid_union" && "options" in issue) {
      // zod's discriminated-union wording names TypeScript types; say what the file allows.
      const values = (issue.options as unknown[]).map((v) => JSON.stringify(v)).join(", ");
      const [p] = zodProblems(file, { issues: [issue] }, input, pathPrefix);
      problems.push({ ...p!, expected: `one of ${values}` });
    } else if (issue.code === "invalid_key") {
      const key = issue.path.at(-1);
      problems.push({
        file,
        field: formatPath(issue.path, pathPrefix),
        found: `key ${JSON.stringify(key)}`,
        expected: issue.issues[0]?.message ?? "a valid key",
      });
    } else if (issue.code === "too_small" && issue.origin === "array") {
      const [p] = zodProblems(file, { issues: [issue] }, input, pathPrefix);
      const n = Number(issue.minimum);
      problems.push({ ...p!, expected: `at least ${n} item${n === 1 ? "" : "s"}` });
    } else if (issue.code === "invalid_type" && issue.expected !== "undefined") {
      const [p] = zodProblems(file, { issues: [issue] }, input, pathPrefix);
      // A schema's own words for the type win over the generic ones ("Invalid input: …").
      const own = issue.message.startsWith("Invalid input") ? undefined : issue.message;
      const expected = own ?? TOML_TYPES[issue.expected] ?? `a ${issue.expected}`;
      problems.push({ ...p!, expected });
    } else {
      problems.push(...zodProblems(file, { issues: [issue] }, input, pathPrefix));
    }
  }
  return problems;
}

// Types in the words of a TOML file, not of JavaScript.
const TOML_TYPES: Record<string, string> = {
  object: "a table",
  record: "a table",
  array: "an array",
  int: "an integer",
  number: "a number",
  boolean: "true or false",
};

function unknownKeyHint(key: string, known: string[]): string {
  const near = nearestKey(key, known);
  if (near !== undefined) return `a known key (did you mean ${JSON.stringify(near)}?)`;
  return known.length > 0 ? `one of the known keys: ${known.join(", ")}` : "no such key";
}

/** The known key closest in spelling to `key`, when it is close enough to be a typo. */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const candidate of known) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const swap = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + swap);
    }
    prev = cur;
  }
  return prev[b.length]!;
}

type Def = {
  type: string;
  shape?: Record<string, z.$ZodType>;
  element?: z.$ZodType;
  innerType?: z.$ZodType;
  in?: z.$ZodType;
  options?: z.$ZodType[];
  discriminator?: string;
  values?: unknown[];
};
const defOf = (s: z.$ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Keys of the strict object that `schema` expects at `path` (following the input's values). */
function knownKeysAt(
  schema: z.$ZodType,
  path: ReadonlyArray<PropertyKey>,
  input: unknown,
): string[] {
  let s: z.$ZodType | undefined = unwrap(schema, input);
  let value = input;
  for (const key of path) {
    if (s === undefined) return [];
    value = value !== null && typeof value === "object" ? (value as never)[key] : undefined;
    const def = defOf(s);
    s = def.type === "object" ? def.shape?.[String(key)] : def.element;
    if (s !== undefined) s = unwrap(s, value);
  }
  const shape = s === undefined ? undefined : defOf(s).shape;
  return shape === undefined ? [] : Object.keys(shape);
}

function unwrap(schema: z.$ZodType, value: unknown): z.$ZodType | undefined {
  let s: z.$ZodType | undefined = schema;
  for (let depth = 0; s !== undefined && depth < 20; depth++) {
    const def = defOf(s);
    if (def.innerType !== undefined) s = def.innerType;
    else if (def.type === "pipe") s = def.in;
    else if (def.type === "union" && def.discriminator !== undefined) {
      const want = (value as Record<string, unknown> | undefined)?.[def.discriminator];
      s = def.options?.find((o) =>
        defOf(defOf(o).shape?.[def.discriminator!] ?? o).values?.includes(want),
      );
    } else return s;
  }
  return s;
}
