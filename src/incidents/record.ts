// What an incident is: its frontmatter fields (docs/formats.md, "Incidents") read tolerantly
// from a file a person may have edited, and validated with errors that name file and field.
import * as z from "zod";
import { type FieldProblem, formatProblem, zodProblems } from "../util/errors.js";
import { MalformedIncidentError } from "./errors.js";
import type { FrontmatterFile } from "./frontmatter.js";

export const INCIDENT_PRIORITIES = ["critical", "high", "medium", "low"] as const;
export const INCIDENT_STATUSES = ["open", "acknowledged", "resolved"] as const;
export type IncidentPriority = (typeof INCIDENT_PRIORITIES)[number];
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

export interface Incident {
  slug: string;
  file: string;
  id: string;
  name: string;
  description: string;
  priority: IncidentPriority;
  status: IncidentStatus;
  createdAt: string;
  updatedAt: string;
  tags: string[];
  runId: string | null;
  schedule: string | null;
  fingerprint: string | null;
  /** Frontmatter keys this tool does not know, as the person wrote them. */
  extra: Record<string, unknown>;
  /** The Markdown after the frontmatter, changelog included. */
  body: string;
}

// Hand edits are forgiven where the intent is plain: `High` for `high`, a number for an id,
// a single tag instead of a list, an empty value for none.
const word = z.preprocess((v) => (typeof v === "string" ? v.trim().toLowerCase() : v), z.string());
const text = z.union([z.string(), z.number()]).transform(String);
const optionalText = z.preprocess((v) => (v === "" ? null : v), text.nullable()).default(null);

const frontmatterSchema = z.looseObject({
  id: text.default(""),
  name: text.optional(),
  description: z.preprocess((v) => v ?? "", text),
  priority: word.pipe(z.enum(INCIDENT_PRIORITIES)).default("medium"),
  status: word.pipe(z.enum(INCIDENT_STATUSES)).default("open"),
  created_at: text.default(""),
  updated_at: text.default(""),
  tags: z.preprocess(
    (v) => (v === null || v === undefined ? [] : typeof v === "string" ? [v] : v),
    z.array(text),
  ),
  run_id: optionalText,
  schedule: optionalText,
  fingerprint: optionalText,
});

const KNOWN = new Set(Object.keys(frontmatterSchema.shape));

/** Reads an incident from parsed frontmatter; a bad field throws naming file and field. */
export function toIncident(parsed: FrontmatterFile, file: string, slug: string): Incident {
  const raw: unknown = parsed.doc.toJS() ?? {};
  const result = frontmatterSchema.safeParse(raw);
  if (!result.success) {
    const problems: FieldProblem[] = zodProblems(file, result.error, raw);
    const detail = problems.map((p) => formatProblem({ ...p, file: "" }).replace(/^: /, ""));
    throw new MalformedIncidentError(file, detail.join("; "));
  }
  const fm = result.data;
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fm)) if (!KNOWN.has(key)) extra[key] = value;
  return {
    slug,
    file,
    id: fm.id,
    name: fm.name ?? slug,
    description: fm.description,
    priority: fm.priority,
    status: fm.status,
    createdAt: fm.created_at,
    updatedAt: fm.updated_at,
    tags: fm.tags,
    runId: fm.run_id,
    schedule: fm.schedule,
    fingerprint: fm.fingerprint,
    extra,
    body: parsed.body,
  };
}

/** True while an incident still needs a person (not resolved). */
export function isActive(incident: Incident): boolean {
  return incident.status !== "resolved";
}
