// The digest as people read it: a subject, sections of plain lines (mail text, Google Chat,
// Telegram, ntfy, the terminal) and an HTML mail part, every value from the report escaped.
import { formatDuration } from "../../util/duration.js";
import { escapeHtml } from "../../util/html-escape.js";
import { printable } from "../../util/terminal-text.js";
import { type DigestReport, type DigestRun, digestHeadline } from "./digest-report.js";
import { shorten } from "./render.js";
import { wallClock } from "./time-text.js";

/** A titled block of lines; empty sections are left out. */
export interface DigestSection {
  title: string;
  lines: string[];
  /** A schedule's runs: cut first when a service's size limit is reached. */
  runs: boolean;
}

/** "2026-11-29 07:00": minutes are enough for a summary. */
const when = (iso: string, timeZone: string): string =>
  wallClock(new Date(iso), timeZone).slice(0, 16);

export function digestSubject(report: DigestReport): string {
  const subject = `[DIGEST] ${report.name}: ${digestHeadline(report)}`;
  return printable(shorten(subject, 200).replace(/[\r\n\t]+/g, " "));
}

/** "2026-11-28 07:00 to 2026-11-29 07:00 Europe/Berlin". */
export function digestPeriod(report: DigestReport): string {
  const tz = report.timezone;
  return `${when(report.since, tz)} to ${when(report.until, tz)} ${tz}`;
}

/**
 * One run: "completed  07:12  12m30s  $0.42  run-id  PR https://…"; its day ("11-27 07:12")
 * when it ended on another day than the period.
 */
export function runLine(run: DigestRun, report: DigestReport): string {
  const at = when(run.at, report.timezone);
  const sameDay = at.slice(0, 10) === when(report.until, report.timezone).slice(0, 10);
  const parts = [run.status.replace(/_/g, " "), sameDay ? at.slice(11) : at.slice(5)];
  if (run.durationMs !== undefined) parts.push(formatDuration(run.durationMs));
  if (run.costUsd !== undefined)
    parts.push(`$${run.costUsd.toFixed(2)}${run.unpricedIterations ? "+?" : ""}`);
  else parts.push("cost unknown");
  parts.push(run.runId);
  if (run.stopReason !== undefined && run.status !== "completed") parts.push(`(${run.stopReason})`);
  if (run.pullRequest !== undefined) parts.push(`PR ${run.pullRequest}`);
  if (run.reports !== undefined) parts.push(`report ${run.reports.join(", ")}`);
  return parts.join("  ");
}

export function digestSections(report: DigestReport): DigestSection[] {
  const sections: DigestSection[] = report.schedules.map((s) => {
    const counts = Object.entries(s.counts).map(([k, n]) => `${n} ${k.replace(/_/g, " ")}`);
    const unknown = s.unknownCost > 0 ? ` (+${s.unknownCost} of unknown cost)` : "";
    const lines = [`${counts.join(", ")}; $${s.costUsd.toFixed(2)}${unknown}`];
    lines.push(...s.runs.map((r) => `- ${runLine(r, report)}`));
    if (s.more > 0) lines.push(`- … and ${s.more} more (autoloop-cron runs ${s.schedule})`);
    return { title: s.schedule, lines, runs: true };
  });
  if (report.schedules.length === 0)
    sections.push({ title: "Runs", lines: ["No runs."], runs: false });
  const questions = report.questions.map(
    (q) => `- ${[q.schedule, q.run].filter(Boolean).join(" ")}: ${q.summary}`,
  );
  if (questions.length > 0)
    sections.push({ title: "Open questions", lines: questions, runs: false });
  const incidents = report.incidents.map(
    (i) => `- [${i.priority}, ${i.status}] ${i.name} (${i.slug})`,
  );
  if (incidents.length > 0)
    sections.push({ title: "Open incidents", lines: incidents, runs: false });
  const spend = report.spend.map((s) => `- ${s.line}`);
  if (spend.length > 0)
    sections.push({ title: "Spend against budgets", lines: spend, runs: false });
  return sections;
}

/** The digest as plain text (mail text part, terminal), of all its sections or those given. */
export function digestText(
  report: DigestReport,
  sections: DigestSection[] = digestSections(report),
): string {
  const head = [`Digest "${report.name}": ${digestHeadline(report)}`, digestPeriod(report)];
  // Run text (ids, stop reasons, questions, file names) reaches terminals: no control bytes.
  const body = sections.map((s) => [s.title, ...s.lines].map((l) => printable(l)).join("\n"));
  return `${[head.join("\n"), ...body].join("\n\n")}\n`;
}

const FONT = "font-family:sans-serif";

export function digestHtml(report: DigestReport): string {
  const e = escapeHtml;
  const parts = [
    `<h2 style="${FONT}">${e(digestSubject(report))}</h2>`,
    `<p style="${FONT};color:#52525b">${e(digestPeriod(report))}</p>`,
  ];
  for (const s of digestSections(report)) {
    // A schedule's first line is its totals; the rest are its runs.
    const [totals, items] = s.runs ? [s.lines[0], s.lines.slice(1)] : [undefined, s.lines];
    parts.push(`<h3 style="${FONT}">${e(s.title)}</h3>`);
    if (totals !== undefined) parts.push(`<p style="${FONT}">${e(totals)}</p>`);
    parts.push(`<ul style="${FONT}">`);
    for (const line of items) parts.push(`<li>${e(line.replace(/^- /, ""))}</li>`);
    parts.push("</ul>");
  }
  return parts.join("\n");
}
