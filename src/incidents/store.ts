// Incidents as Markdown files (`<dir>/<slug>.md`, docs/formats.md): YAML frontmatter plus a
// newest-first changelog, readable and editable by hand; every write is atomic.
import { existsSync, readdirSync, readFileSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";
import { nanoid } from "nanoid";
import { writeFileAtomic } from "../util/atomic-write.js";
import { UserError } from "../util/errors.js";
import { withFileLock } from "../util/file-lock.js";
import { formatEntry, newChangelog, prependEntry } from "./changelog.js";
import { createExclusive } from "./create-file.js";
import { AmbiguousIncidentError, IncidentExistsError, IncidentNotFoundError } from "./errors.js";
import { newFrontmatter, parseFrontmatter, renderFrontmatter } from "./frontmatter.js";
import {
  INCIDENT_PRIORITIES,
  type Incident,
  type IncidentPriority,
  type IncidentStatus,
  isActive,
  toIncident,
} from "./record.js";
import { matchSlug, slugify } from "./slug.js";

export interface IncidentStoreDeps {
  now: () => Date;
  /** A prefixed, collision-resistant id such as `inc_V1StGXR8_Z5j`. */
  generateId: () => string;
}

const defaultDeps: IncidentStoreDeps = {
  now: () => new Date(),
  generateId: () => `inc_${nanoid(12)}`,
};

export interface NewIncident {
  name: string;
  description?: string;
  priority?: IncidentPriority;
  tags?: string[];
  runId?: string | null;
  schedule?: string | null;
  fingerprint?: string | null;
  /** Text of the first changelog entry ("Opened"); defaults to the description. */
  entry?: string;
}

/** One active incident as `status` shows it. */
export interface IncidentSummary {
  slug: string;
  name: string;
  status: IncidentStatus;
  priority: IncidentPriority;
  updatedAt: string;
}

export interface IncidentSnapshot {
  /** Open and acknowledged incidents, most urgent first, then most recently updated. */
  active: IncidentSummary[];
  /** Files that could not be read; they are left out rather than hiding the others. */
  problems: string[];
}

export class IncidentStore {
  private readonly deps: IncidentStoreDeps;
  /** Parsed incidents by slug, valid while the file's mtime, size and inode are unchanged. */
  private readonly parsed = new Map<string, { stamp: string; incident: Incident }>();
  /** The folder's `.md` names, valid while its inode and mtime are unchanged. */
  private listing: { stamp: string; slugs: string[]; listedAt: number } | undefined;

  constructor(
    readonly dir: string,
    deps: Partial<IncidentStoreDeps> = {},
  ) {
    this.deps = { ...defaultDeps, ...deps };
  }

  fileOf(slug: string): string {
    return join(this.dir, `${slug}.md`);
  }

  /** A new incident id, for one whose file is written later (`create(input, id)`). */
  newId(): string {
    return this.deps.generateId();
  }

  /** True when `<slug>.md` exists. */
  has(slug: string): boolean {
    return existsSync(this.fileOf(slug));
  }

  /** Creates `<slug>.md`; a taken slug throws IncidentExistsError and changes nothing. */
  create(input: NewIncident, id: string = this.deps.generateId()): Incident {
    const slug = slugify(input.name);
    if (slug === "") throw new UserError(`incident name "${input.name}" has no letter or digit`);
    const priority = input.priority ?? "medium";
    if (!INCIDENT_PRIORITIES.includes(priority)) {
      throw new UserError(
        `priority "${priority}": expected one of ${INCIDENT_PRIORITIES.join(", ")}`,
      );
    }
    const now = this.deps.now().toISOString();
    const doc = newFrontmatter({
      id,
      name: input.name,
      description: input.description ?? "",
      priority,
      status: "open",
      created_at: now,
      updated_at: now,
      tags: input.tags ?? [],
      run_id: input.runId ?? null,
      schedule: input.schedule ?? null,
      fingerprint: input.fingerprint ?? null,
    });
    const firstText = input.entry ?? (input.description || "Incident opened.");
    const body = `\n${newChangelog(formatEntry(now, "Opened", firstText))}`;
    const text = renderFrontmatter({ doc, body });
    const file = this.fileOf(slug);
    if (!createExclusive(file, text)) throw new IncidentExistsError(slug, file);
    return this.remember(slug, toIncident({ doc, body }, file, slug));
  }

  /** The incident `query` names: exact slug, else unique prefix, else unique substring. */
  find(query: string): Incident {
    return this.read(this.resolveSlug(query));
  }

  /**
   * The incident raised for `fingerprint`: an active one first, else the latest resolved.
   * Asked on every alert: only new files and this fingerprint's own are looked at (a file's
   * fingerprint never changes), not every incident ever raised.
   */
  findByFingerprint(fingerprint: string): Incident | undefined {
    const matches: Incident[] = [];
    for (const slug of this.slugs()) {
      const known = this.parsed.get(slug);
      if (known !== undefined && known.incident.fingerprint !== fingerprint) continue;
      try {
        const incident = this.current(slug);
        if (incident.fingerprint === fingerprint) matches.push(incident);
      } catch {
        // Unreadable or just removed: `snapshot().problems` names it.
      }
    }
    matches.sort(
      (a, b) => Number(isActive(b)) - Number(isActive(a)) || b.updatedAt.localeCompare(a.updatedAt),
    );
    return matches[0];
  }

  /** Readable incidents, by slug; unreadable files are skipped (see `snapshot().problems`). */
  list(filter: { status?: IncidentStatus | IncidentStatus[] } = {}): Incident[] {
    const wanted = filter.status === undefined ? undefined : [filter.status].flat();
    return this.scan().incidents.filter((i) => wanted === undefined || wanted.includes(i.status));
  }

  snapshot(): IncidentSnapshot {
    const { incidents, problems } = this.scan();
    const rank = (p: IncidentPriority) => INCIDENT_PRIORITIES.indexOf(p);
    const active = incidents
      .filter(isActive)
      .sort((a, b) => rank(a.priority) - rank(b.priority) || b.updatedAt.localeCompare(a.updatedAt))
      .map(({ slug, name, status, priority, updatedAt }) => ({
        slug,
        name,
        status,
        priority,
        updatedAt,
      }));
    return { active, problems };
  }

  /** Prepends a `### <time> - <heading>` entry with `text` as bullet lines. */
  log(query: string, text: string, heading = "Update"): Incident {
    return this.update(query, () => ({ heading, text }));
  }

  acknowledge(query: string, note = ""): Incident {
    return this.update(query, (incident) => {
      if (incident.status === "resolved") {
        throw new UserError(`incident "${incident.slug}" is resolved; reopen it first`);
      }
      return { heading: "Acknowledged", text: note || "Acknowledged.", status: "acknowledged" };
    });
  }

  /** Marks the incident resolved and prepends the summary as a "Resolved" entry. */
  resolve(query: string, summary: string): Incident {
    return this.update(query, () => ({ heading: "Resolved", text: summary, status: "resolved" }));
  }

  reopen(query: string, note = ""): Incident {
    return this.update(query, () => ({ heading: "Reopened", text: note, status: "open" }));
  }

  private resolveSlug(query: string): string {
    const match = matchSlug(this.slugs(), query);
    if (match.kind === "found") return match.slug;
    if (match.kind === "ambiguous") throw new AmbiguousIncidentError(query, match.candidates);
    throw new IncidentNotFoundError(query);
  }

  private slugs(): string[] {
    let stamp: string;
    let mtimeMs: number;
    try {
      const s = statSync(this.dir);
      stamp = `${s.ino}:${s.mtimeMs}`;
      mtimeMs = s.mtimeMs;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    // The folder's mtime moves with every name added, removed or renamed in it; a listing
    // taken within 2 s of that mtime is not trusted (filesystems with coarse timestamps).
    const l = this.listing;
    if (l?.stamp === stamp && l.listedAt - mtimeMs > 2000) return l.slugs;
    const listedAt = Date.now();
    const names = readdirSync(this.dir);
    // Dot files are temp files of atomic writes; `.md.lock` files are not `.md`.
    const slugs = names
      .filter((n) => n.endsWith(".md") && !n.startsWith("."))
      .map((n) => n.slice(0, -3))
      .sort();
    this.listing = { stamp, slugs, listedAt };
    return slugs;
  }

  /** Keeps what this store just wrote, so the next lookup need not parse it back. */
  private remember(slug: string, incident: Incident): Incident {
    try {
      const s = statSync(this.fileOf(slug));
      this.parsed.set(slug, { stamp: fileStamp(s), incident });
    } catch {
      this.parsed.delete(slug);
    }
    return incident;
  }

  /** The incident in `<slug>.md` as the file is now (parsed again only when it changed). */
  private current(slug: string): Incident {
    const s = statSync(this.fileOf(slug));
    const stamp = fileStamp(s);
    const hit = this.parsed.get(slug);
    if (hit?.stamp === stamp) return hit.incident;
    const incident = this.read(slug);
    this.parsed.set(slug, { stamp, incident });
    return incident;
  }

  private read(slug: string): Incident {
    const file = this.fileOf(slug);
    return toIncident(parseFrontmatter(readFileSync(file, "utf8"), file), file, slug);
  }

  private scan(): { incidents: Incident[]; problems: string[] } {
    const incidents: Incident[] = [];
    const problems: string[] = [];
    const slugs = this.slugs();
    const present = new Set(slugs);
    for (const slug of this.parsed.keys()) if (!present.has(slug)) this.parsed.delete(slug);
    for (const slug of slugs) {
      try {
        incidents.push(this.current(slug));
      } catch (err) {
        problems.push(err instanceof Error ? err.message : String(err));
      }
    }
    return { incidents, problems };
  }

  /**
   * Read, change, write under the file's lock, so the daemon and an operator's CLI never
   * lose each other's entries. Only `updated_at` and the changed `status` are rewritten.
   */
  private update(
    query: string,
    change: (incident: Incident) => { heading: string; text: string; status?: IncidentStatus },
  ): Incident {
    const slug = this.resolveSlug(query);
    const file = this.fileOf(slug);
    return withFileLock(file, () => {
      const parsed = parseFrontmatter(readFileSync(file, "utf8"), file);
      const { heading, text, status } = change(toIncident(parsed, file, slug));
      const now = this.deps.now().toISOString();
      if (status !== undefined) parsed.doc.set("status", status);
      parsed.doc.set("updated_at", now);
      const body = prependEntry(parsed.body, formatEntry(now, heading, text));
      writeFileAtomic(file, renderFrontmatter({ doc: parsed.doc, body }));
      return this.remember(slug, toIncident({ doc: parsed.doc, body }, file, slug));
    });
  }
}

/** Changes whenever a file is replaced (atomic writes make a new inode) or written in place. */
function fileStamp(s: Stats): string {
  return `${s.ino}:${s.size}:${s.mtimeMs}`;
}
