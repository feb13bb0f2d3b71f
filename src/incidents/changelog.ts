// The `## Changelog` section of an incident file: entries newest first (LIFO),
// inserted right under the heading so everything a person wrote elsewhere stays put.

export const CHANGELOG_HEADING = "## Changelog";
export const LIFO_COMMENT = "<!-- LIFO: newest entry at top -->";

/** `### <timestamp> - <heading>` and one `- line` per non-blank line of `text`. */
export function formatEntry(timestamp: string, heading: string, text: string): string {
  const bullets = text
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "")
    .map((line) => `- ${line}`);
  return [`### ${timestamp} - ${heading}`, ...bullets].join("\n");
}

/** The body of a new incident file. */
export function newChangelog(firstEntry: string): string {
  return `${CHANGELOG_HEADING}\n${LIFO_COMMENT}\n\n${firstEntry}\n`;
}

/**
 * Puts `entry` first in the changelog: after the heading and its optional comment, before
 * the previous newest entry. A body without the section (deleted by hand) gets a new one
 * at the end.
 */
export function prependEntry(body: string, entry: string): string {
  const lines = body.split("\n");
  const heading = lines.findIndex((l) => /^##\s+changelog\s*$/i.test(l.trimEnd()));
  if (heading === -1) {
    const kept = body.trimEnd();
    return `${kept === "" ? "" : `${kept}\n\n`}${newChangelog(entry)}`;
  }
  let insertAt = heading + 1;
  let next = insertAt;
  while (next < lines.length && lines[next]!.trim() === "") next++;
  if (next < lines.length && /^<!--.*-->$/.test(lines[next]!.trim())) insertAt = next + 1;
  let rest = insertAt;
  while (rest < lines.length && lines[rest]!.trim() === "") rest++;
  const tail = lines.slice(rest);
  const out = [...lines.slice(0, insertAt), "", ...entry.split("\n"), ""];
  return tail.length === 0 ? out.join("\n") : [...out, ...tail].join("\n");
}
