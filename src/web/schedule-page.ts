// `/schedules/<name>`: one schedule, how its last runs went (bars and the same runs as a
// table), what it spent per day against its budget, and its badge for a README.
import type { ScheduleRow } from "../operator/overview.js";
import { type SpendRow, spendSummary } from "../scheduler/budget/spend-rows.js";
import type { SpendTrend } from "../scheduler/budget/spend-trend.js";
import { formatDuration } from "../util/duration.js";
import { badgeState } from "./charts/badge.js";
import { runBars } from "./charts/run-bars.js";
import { Html, html, when } from "./html.js";
import { actionForm, layout, type PageContext, statusText } from "./layout.js";
import { spendTrendSection } from "./spend-trend-section.js";

export interface SchedulePageData {
  /** Its row as the overview builds it, with the last runs the chart shows. */
  row: ScheduleRow;
  spend: SpendRow;
  trend: SpendTrend;
  /** The badge's address as this page was reached, for the README snippet. */
  badgeUrl: string;
}

/** How many runs the chart and its table show. */
export const TREND_RUNS = 30;

const BARS_LEGEND =
  "Each bar is a run, oldest at the left; its height is how long it took. Bars above the line completed; bars below it failed, timed out or were stopped; a dot is a skipped slot; a pale bar is still running. Hover a bar for its run, duration and cost.";

function runsTable(row: ScheduleRow, now: number) {
  if (row.recent.length === 0) return html`<p class="muted">No runs yet.</p>`;
  return html`<table><caption class="sr-only">The runs in the chart, newest first</caption><thead><tr><th scope="col">Run</th><th scope="col">Outcome</th><th scope="col">Ended or started</th><th scope="col">Duration</th><th scope="col">Cost</th></tr></thead><tbody>
${row.recent.map(
  (m) =>
    html`<tr><td><a href="/runs/${encodeURIComponent(m.runId)}"><code>${m.runId}</code></a></td><td>${statusText(m.status, m.stopReason)}</td><td>${when(m.at, now)}</td><td>${m.durationMs === undefined ? html`<span class="muted">—</span>` : formatDuration(m.durationMs)}</td><td>${m.costUsd === undefined ? html`<span class="muted">not reported</span>` : `$${m.costUsd.toFixed(4)}`}</td></tr>`,
)}
</tbody></table>`;
}

function actions(row: ScheduleRow, ctx: PageContext) {
  const base = `/schedules/${encodeURIComponent(row.name)}`;
  return row.paused
    ? actionForm(`${base}/resume`, "Resume", ctx)
    : html`${actionForm(`${base}/pause`, "Pause", ctx)}${actionForm(`${base}/fire`, "Fire now", ctx)}`;
}

export function schedulePage(d: SchedulePageData, ctx: PageContext): string {
  const { row } = d;
  const state =
    row.state === "failing"
      ? html`<span class="state failing">failing</span> <span class="muted">since</span> ${when(row.failingSince, ctx.now)} <span class="muted">(${row.consecutiveFailures} in a row)</span>`
      : html`<span class="state ${row.state}">${row.state}</span>`;
  const bars = runBars(row.recent, {
    schedule: row.name,
    now: ctx.now,
    width: 720,
    height: 160,
    slots: TREND_RUNS,
  });
  const badge = badgeState(row);
  const body = html`<h1>Schedule ${row.name}</h1>
<dl class="fields">
<dt>Runs</dt><dd>${row.kind}: ${row.target}</dd>
<dt>Cron</dt><dd><code>${row.cron}</code> <span class="muted">${row.timezone}</span></dd>
<dt>State</dt><dd>${state}${row.running.length > 0 ? html`; running ${row.running.map((r) => html`<a href="/runs/${encodeURIComponent(r)}">${r}</a> `)}` : ""}</dd>
<dt>Next fire</dt><dd>${when(row.nextFire, ctx.now)}</dd>
<dt>File</dt><dd><code>${row.file}</code></dd>
<dt>Spend</dt><dd>${d.spend.exhausted ? html`<span class="state failing">spent</span> ${d.spend.exhausted}<br>` : ""}${spendSummary(d.spend)}</dd>
</dl>
<p>${actions(row, ctx)}</p>
<h2 id="runs">Last ${TREND_RUNS} runs</h2>
<figure class="bars">${new Html(bars.svg)}<figcaption class="muted">${BARS_LEGEND}</figcaption></figure>
${runsTable(row, ctx.now)}
<h2 id="spend">Spend per day</h2>
${spendTrendSection(d.trend) || html`<p>No spend recorded in these days, and no dollar budget.</p>`}
<h2 id="badge">Badge</h2>
<p><img src="/schedules/${encodeURIComponent(row.name)}/badge.svg" alt="${row.name}: ${badge}"></p>
<p>For a README: <code>![${row.name}](${d.badgeUrl})</code> <span class="muted">(passing, failing, running, paused; it is cached for a minute)</span></p>`;
  return layout(`Schedule ${row.name}`, body, ctx);
}
