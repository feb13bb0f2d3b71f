// Incident slugs: the file name of an incident (`<slug>.md`) and how a typed name finds one
// (exact slug, then prefix, then substring).

/** Longest slug kept; long alert names would otherwise make unwieldy file names. */
export const MAX_SLUG_LENGTH = 60;

/**
 * Lowercase ASCII letters and digits joined by single hyphens, accents folded, at most
 * `maxLength` characters (cut at a hyphen when one is near). "" when nothing is left.
 * Path-safe by construction: no dots, slashes or spaces.
 */
export function slugify(name: string, maxLength = MAX_SLUG_LENGTH): string {
  const words = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  let slug = words.join("-");
  if (slug.length > maxLength) {
    slug = slug.slice(0, maxLength);
    const lastHyphen = slug.lastIndexOf("-");
    // Prefer whole words, unless that would throw away most of the slug.
    if (lastHyphen > maxLength / 2) slug = slug.slice(0, lastHyphen);
    slug = slug.replace(/-+$/, "");
  }
  return slug;
}

export type SlugMatch =
  | { kind: "found"; slug: string; by: "exact" | "prefix" | "substring" }
  | { kind: "none" }
  | { kind: "ambiguous"; by: "prefix" | "substring"; candidates: string[] };

/** Finds the one slug `query` names: exact, else a unique prefix, else a unique substring. */
export function matchSlug(slugs: readonly string[], query: string): SlugMatch {
  const wanted = slugify(query);
  if (wanted === "") return { kind: "none" };
  if (slugs.includes(wanted)) return { kind: "found", slug: wanted, by: "exact" };
  for (const by of ["prefix", "substring"] as const) {
    const hits = slugs
      .filter((s) => (by === "prefix" ? s.startsWith(wanted) : s.includes(wanted)))
      .sort();
    if (hits.length === 1) return { kind: "found", slug: hits[0]!, by };
    if (hits.length > 1) return { kind: "ambiguous", by, candidates: hits };
  }
  return { kind: "none" };
}
