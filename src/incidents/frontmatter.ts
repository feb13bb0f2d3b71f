// YAML frontmatter of a Markdown file, kept as a `yaml` Document so that rewriting a field
// preserves the keys, comments and layout a person added by hand.
import { Document, isMap, parseDocument } from "yaml";
import { MalformedIncidentError } from "./errors.js";

export interface FrontmatterFile {
  doc: Document;
  /** Everything after the closing `---` line, exactly as written. */
  body: string;
}

// New values are double-quoted, like the seed's example, so YAML 1.1 readers never turn
// a timestamp or `no` into something else; values a person wrote keep their style.
const RENDER = {
  defaultStringType: "QUOTE_DOUBLE",
  defaultKeyType: "PLAIN",
  lineWidth: 0,
  flowCollectionPadding: false,
} as const;

/** Splits `---\n<yaml>\n---\n<body>`; `file` names the file in errors. */
export function parseFrontmatter(text: string, file: string): FrontmatterFile {
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  if (lines[0]?.trimEnd() !== "---") {
    throw new MalformedIncidentError(file, 'no YAML frontmatter: the first line must be "---"');
  }
  const close = lines.findIndex((l, i) => i > 0 && /^(---|\.\.\.)$/.test(l.trimEnd()));
  if (close === -1) {
    throw new MalformedIncidentError(file, 'frontmatter is not closed by a "---" line');
  }
  const doc = parseDocument(lines.slice(1, close).join("\n"), { prettyErrors: true });
  const [problem] = doc.errors;
  if (problem !== undefined) {
    // linePos is 1-based within the YAML; the file has the opening "---" line above it.
    const where = problem.linePos ? ` (line ${problem.linePos[0].line + 1})` : "";
    const what = problem.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw new MalformedIncidentError(file, `frontmatter is not valid YAML${where}: ${what}`);
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new MalformedIncidentError(file, "frontmatter must be a mapping of keys to values");
  }
  return { doc, body: lines.slice(close + 1).join("\n") };
}

/** A frontmatter Document from plain values, keys in the given order. */
export function newFrontmatter(fields: Record<string, unknown>): Document {
  return new Document(fields);
}

export function renderFrontmatter({ doc, body }: FrontmatterFile): string {
  const yaml = doc.contents === null ? "" : doc.toString(RENDER);
  return `---\n${yaml}---\n${body}`;
}
