// Gitea takes a pull request's labels by id: the names a schedule gives are looked up among the
// repository's labels, then its organisation's. None is created; a name found in neither is a
// warning, not a failed delivery.

import { ForgeError } from "./forge.js";
import type { GiteaCall } from "./gitea-api.js";

interface GiteaLabel {
  id: number;
  name: string;
}

// Gitea's largest page by default; more labels than these pages hold is rare.
const PAGE_SIZE = 50;
const PAGES = 10;

/** Adds the labels at `path` to `byName`, page by page, until every name is found. */
async function collect(
  call: GiteaCall,
  what: string,
  path: string,
  names: string[],
  byName: Map<string, number>,
): Promise<void> {
  for (let page = 1; page <= PAGES; page++) {
    const labels = await call<GiteaLabel[]>(what, "GET", `${path}?limit=${PAGE_SIZE}&page=${page}`);
    for (const l of labels) if (!byName.has(l.name)) byName.set(l.name, l.id);
    if (labels.length < PAGE_SIZE || names.every((n) => byName.has(n))) return;
  }
}

export async function giteaLabelIds(
  call: GiteaCall,
  repository: string,
  names: string[],
  warnings: string[],
): Promise<number[]> {
  const byName = new Map<string, number>();
  await collect(call, "listing labels", `/repos/${repository}/labels`, names, byName);
  if (!names.every((n) => byName.has(n))) {
    const owner = repository.split("/")[0]!;
    try {
      const path = `/orgs/${encodeURIComponent(owner)}/labels`;
      await collect(call, "listing the organisation's labels", path, names, byName);
    } catch (err) {
      // A user's repository: there is no organisation to look in.
      if (!(err instanceof ForgeError && err.status === 404)) throw err;
    }
  }
  const missing = names.filter((n) => !byName.has(n));
  if (missing.length > 0)
    warnings.push(
      `Gitea: ${repository} has no label ${missing.map((n) => JSON.stringify(n)).join(", ")}: create it there (the daemon creates none) or fix deliver.pull_request.labels`,
    );
  return names.flatMap((n) => byName.get(n) ?? []);
}
