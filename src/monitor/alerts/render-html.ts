// The HTML part of alert mails: the same facts as the text part, every value escaped.
import { escapeHtml } from "../../util/html-escape.js";
import type { AlertMessage } from "./message.js";
import {
  alertCommands,
  alertFacts,
  JOURNAL_TAIL_LINES,
  type RenderContext,
  renderSubject,
} from "./render.js";

const STATUS_COLOR = {
  firing: "#b91c1c",
  reminder: "#b45309",
  acknowledged: "#1d4ed8",
  resolved: "#15803d",
} as const;
const PRE = "background:#f4f4f5;padding:8px;font-size:12px;white-space:pre-wrap;";

export function renderHtml(m: AlertMessage, ctx: RenderContext): string {
  const e = escapeHtml;
  const parts: string[] = [
    `<h2 style="color:${STATUS_COLOR[m.status]};font-family:sans-serif">${e(renderSubject(m))}</h2>`,
    `<p style="font-family:sans-serif"><strong>${e(m.title)}</strong><br>${e(m.summary)}</p>`,
    '<table style="font-family:sans-serif;border-collapse:collapse">',
  ];
  for (const f of alertFacts(m, ctx.now)) {
    parts.push(
      `<tr><th style="text-align:left;padding:2px 12px 2px 0;vertical-align:top">${e(f.label)}</th><td>${e(f.value)}</td></tr>`,
    );
  }
  parts.push("</table>");
  if (m.detail) parts.push(`<p style="font-family:sans-serif">${e(m.detail)}</p>`);
  if (m.gate && m.gate.openTasks.length > 0) {
    parts.push('<h3 style="font-family:sans-serif">Open tasks</h3><ul>');
    for (const t of m.gate.openTasks) parts.push(`<li><code>${e(t.id)}</code> ${e(t.text)}</li>`);
    parts.push("</ul>");
  }
  if (m.retry !== undefined && m.retry.attempts.length > 1) {
    parts.push('<p style="font-family:sans-serif"><b>Attempts of this slot</b>:</p><ul>');
    for (const a of m.retry.attempts) parts.push(`<li>${e(a)}</li>`);
    parts.push("</ul>");
  }
  if (m.group !== undefined && m.group.runs.length > 1) {
    parts.push(
      '<p style="font-family:sans-serif"><b>Runs in this incident</b> (newest first):</p><ul>',
    );
    for (const r of m.group.runs) parts.push(`<li>${e(r)}</li>`);
    parts.push("</ul>");
  }
  const tail = m.journalTail.slice(-JOURNAL_TAIL_LINES);
  if (tail.length > 0) {
    parts.push(
      `<h3 style="font-family:sans-serif">Last ${tail.length} journal lines</h3>`,
      `<pre style="${PRE}">${e(tail.join("\n"))}</pre>`,
    );
  }
  const commands = alertCommands(m);
  if (commands.length > 0) {
    parts.push('<h3 style="font-family:sans-serif">What to do</h3>');
    for (const c of commands) {
      parts.push(`<p style="font-family:sans-serif;margin:4px 0">${e(c.label)}:</p>`);
      parts.push(`<pre style="${PRE}"><code>${e(c.value)}</code></pre>`);
    }
  }
  parts.push(
    `<p style="color:#71717a;font-size:11px">autoloop-cron, alert ${e(m.fingerprint)}</p>`,
  );
  return `<!doctype html><html><body>${parts.join("\n")}</body></html>\n`;
}
