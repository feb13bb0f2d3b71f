// The frame every status page shares, and the small pieces the pages are made of: a form
// for one operator action, a run's coloured mark.
import type { RunMark } from "../operator/overview.js";
import { Html, html, relative } from "./html.js";

export interface PageContext {
  now: number;
  /** The daemon's token for its forms (cross-site requests do not have it). */
  token: string;
  /** Operator actions are on ([http] actions). */
  actions: boolean;
  /** The page's own path and query: where a form sends the browser back to. */
  path: string;
  notice?: string;
  error?: string;
}

export function layout(title: string, body: Html, ctx: PageContext): string {
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · autoloop-cron</title>
<link rel="stylesheet" href="/assets/status.css">
<script src="/assets/live.js" defer></script>
</head>
<body>
<header>
<a class="brand" href="/">autoloop-cron</a>
<nav aria-label="Sections"><a href="/">Overview</a> · <a href="/#incidents">Incidents</a> · <a href="/#schedules">Schedules</a></nav>
<span id="live" class="muted" role="status" aria-live="polite">Live updates off</span>
</header>
<main id="main">
${ctx.notice ? html`<p class="notice" role="status">${ctx.notice}</p>` : ""}
${ctx.error ? html`<p class="error" role="alert">${ctx.error}</p>` : ""}
${body}
</main>
</body>
</html>
`;
  return page.text;
}

/** A one-button form POSTing to `action`; it comes back to this page. */
export function actionForm(
  action: string,
  label: string,
  ctx: PageContext,
  options: { danger?: boolean; note?: string; describedBy?: string } = {},
): Html {
  if (!ctx.actions) return html``;
  const note =
    options.note === undefined
      ? ""
      : html`<label for="${options.note}">Note</label><input type="text" id="${options.note}" name="note" size="28">`;
  return html`<form class="inline" method="post" action="${action}"><input type="hidden" name="token" value="${ctx.token}"><input type="hidden" name="back" value="${ctx.path}">${note}<button type="submit"${options.danger ? new Html(' class="danger"') : ""}${options.describedBy ? html` aria-describedby="${options.describedBy}"` : ""}>${label}</button></form>`;
}

/** A form with a text box whose text is the action's `note` (an answer, guidance). */
export function textForm(
  action: string,
  label: string,
  field: { id: string; label: string },
  ctx: PageContext,
): Html {
  if (!ctx.actions) return html``;
  return html`<form method="post" action="${action}"><input type="hidden" name="token" value="${ctx.token}"><input type="hidden" name="back" value="${ctx.path}"><label for="${field.id}">${field.label}</label><br><textarea id="${field.id}" name="note" rows="3" cols="60" required maxlength="2000"></textarea><br><button type="submit">${label}</button></form>`;
}

const SYMBOL: Record<string, string> = {
  completed: "✓",
  failed: "✗",
  timed_out: "⏱",
  running: "▶",
  pending: "…",
  skipped: "–",
  killed: "■",
  interrupted: "■",
};

/** A run as a coloured mark with a symbol and a text alternative, linking to its page. */
export function mark(m: RunMark, now: number): Html {
  const label = `${m.status.replace("_", " ")}${m.stopReason ? ` (${m.stopReason})` : ""}, ${relative(m.at, now)}: ${m.runId}`;
  return html`<a class="mark ${m.status}" href="/runs/${encodeURIComponent(m.runId)}" title="${label}" aria-label="${label}">${SYMBOL[m.status] ?? "?"}</a>`;
}

export function statusText(status: string, reason?: string): Html {
  return html`<span class="status-${status}">${status.replace("_", " ")}</span>${reason ? html` <span class="muted">(${reason})</span>` : ""}`;
}
