// `/`: the schedules at a glance (cron, zone, next fire, state, the last runs as marks),
// what is firing, the open incidents and the runs in progress.
import type { IncidentSummary } from "../incidents/store.js";
import type { FiringAlert } from "../monitor/status.js";
import type { WindowState } from "../monitor/windows.js";
import type { OverviewPage, ScheduleRow } from "../operator/overview.js";
import { usd } from "../scheduler/budget/spend.js";
import type { SpendRow } from "../scheduler/budget/spend-rows.js";
import type { SpendTrend } from "../scheduler/budget/spend-trend.js";
import { runBars } from "./charts/run-bars.js";
import { Html, html, when } from "./html.js";
import { actionForm, layout, mark, type PageContext } from "./layout.js";
import { spendTrendSection } from "./spend-trend-section.js";

export interface DashboardData {
  overview: OverviewPage;
  filter: string;
  firing: FiringAlert[];
  incidents: IncidentSummary[];
  running: { runId: string; schedule: string; startedAt?: string }[];
  outbox: { backlog: number; deadLetters: number };
  invalidFiles: { file: string; problems: string[] }[];
  allPaused: boolean;
  killSwitch: boolean;
  /** Schedules with a budget or spend this month. */
  spend: SpendRow[];
  /** Spend per day over the last weeks, for the Spend chart. */
  spendTrend?: SpendTrend;
  /** The maintenance windows (`[[silence]]`), open or next. */
  windows?: WindowState[];
}

const pathPart = (text: string) => encodeURIComponent(text);

/** Marks shown per row; the sparkline beside them shows all the row's recent runs. */
const MARKS = 10;

const sparkline = (row: ScheduleRow, now: number) =>
  row.recent.length === 0
    ? ""
    : new Html(
        runBars(row.recent, { schedule: row.name, now, width: 120, height: 26, detail: "short" })
          .svg,
      );

function scheduleRow(row: ScheduleRow, ctx: PageContext) {
  const id = `s-${pathPart(row.name)}`;
  const state =
    row.state === "failing"
      ? html`<span class="state failing">failing</span> <span class="muted">since</span> ${when(row.failingSince, ctx.now)} <span class="muted">(${row.consecutiveFailures} in a row)</span>`
      : html`<span class="state ${row.state}">${row.state}</span>`;
  const base = `/schedules/${pathPart(row.name)}`;
  return html`<tr id="${id}">
<th scope="row"><span id="${id}-name"><a href="${base}">${row.name}</a></span><br><span class="muted">${row.kind}: ${row.target}</span></th>
<td><code>${row.cron}</code><br><span class="muted">${row.timezone}</span></td>
<td>${row.nextFire ? when(row.nextFire, ctx.now) : html`<span class="muted">—</span>`}</td>
<td>${state}${row.running.length > 0 ? html`<br><span class="muted">running:</span> ${row.running.map((r) => html`<a href="/runs/${pathPart(r)}">${r}</a> `)}` : ""}</td>
<td>${sparkline(row, ctx.now)}</td>
<td><div class="marks" role="list" aria-label="Last runs of ${row.name}, newest first">${row.recent.slice(0, MARKS).map((m) => html`<span role="listitem">${mark(m, ctx.now)}</span>`)}</div>${row.recent.length === 0 ? html`<span class="muted">no runs yet</span>` : ""}</td>
<td>${row.paused ? actionForm(`${base}/resume`, "Resume", ctx, { describedBy: `${id}-name` }) : html`${actionForm(`${base}/pause`, "Pause", ctx, { describedBy: `${id}-name` })}${actionForm(`${base}/fire`, "Fire now", ctx, { describedBy: `${id}-name` })}`}</td>
</tr>`;
}

/** "2 alerts firing (1 acked)": the number matches the table below it, muted ones named. */
function firingCount(firing: FiringAlert[]) {
  const muted = firing.filter((f) => f.muted !== undefined).length;
  return html`<strong>${firing.length}</strong> alerts firing${muted > 0 ? html` <span class="muted">(${muted} acked or silenced)</span>` : ""}`;
}

function firingSection(firing: FiringAlert[], ctx: PageContext) {
  if (firing.length === 0) return html`<p>No alerts firing.</p>`;
  return html`<table><thead><tr><th scope="col">Alert</th><th scope="col">Kind</th><th scope="col">Schedule</th><th scope="col">Run</th><th scope="col">Firing since</th></tr></thead><tbody>
${firing.map(
  (f) =>
    html`<tr><td>${f.summary}${f.muted ? html` <span class="muted">(${f.muted})</span>` : ""}</td><td>${f.kind}</td><td>${f.schedule ?? ""}</td><td>${f.run ? html`<a href="/runs/${pathPart(f.run)}">${f.run}</a>` : ""}</td><td>${when(f.firedAt, ctx.now)}</td></tr>`,
)}
</tbody></table>`;
}

/** "$3.20 of $20.00" (and tokens, when limited). */
function spent(amount: number, limit: number | undefined, tokens: number, tokenLimit?: number) {
  const dollars = limit === undefined ? usd(amount) : `${usd(amount)} of ${usd(limit)}`;
  return tokenLimit === undefined
    ? dollars
    : `${dollars}, ${tokens.toLocaleString("en-US")} of ${tokenLimit.toLocaleString("en-US")} tokens`;
}

function spendSection(rows: SpendRow[]) {
  if (rows.length === 0) return html`<p>No schedule has a budget or spent anything this month.</p>`;
  return html`<table><thead><tr><th scope="col">Schedule</th><th scope="col">Today</th><th scope="col">This month</th><th scope="col">Per run</th><th scope="col">Budget</th></tr></thead><tbody>
${rows.map((r) => {
  const b = r.budget ?? {};
  const state = r.exhausted
    ? html`<span class="state failing">spent</span> <span class="muted">${r.exhausted}</span>`
    : r.holds === "cannot"
      ? html`<span class="state paused">cannot hold</span> <span class="muted">${r.thisMonth.unknownCost} run(s) of unknown cost; add a token limit</span>`
      : r.holds === "none"
        ? html`<span class="muted">none</span>`
        : html`<span class="state active">holds</span>${r.holds === "tokens" ? html` <span class="muted">(on tokens)</span>` : ""}`;
  const perRun = [
    b.perRunUsd === undefined ? "" : usd(b.perRunUsd),
    b.perRunTokens === undefined ? "" : `${b.perRunTokens.toLocaleString("en-US")} tokens`,
  ]
    .filter(Boolean)
    .join(", ");
  return html`<tr><th scope="row">${r.schedule}<br><span class="muted">${r.timezone}</span></th><td>${spent(r.today.costUsd, b.perDayUsd, r.today.tokens, b.perDayTokens)}${r.today.running > 0 ? html` <span class="muted">(${r.today.running} running)</span>` : ""}</td><td>${spent(r.thisMonth.costUsd, b.perMonthUsd, r.thisMonth.tokens, b.perMonthTokens)}${r.thisMonth.unknownCost > 0 ? html` <span class="muted">+ ${r.thisMonth.unknownCost} run(s) of unknown cost</span>` : ""}</td><td>${perRun || html`<span class="muted">—</span>`}</td><td>${state}</td></tr>`;
})}
</tbody></table>`;
}

function incidentsSection(incidents: IncidentSummary[], ctx: PageContext) {
  if (incidents.length === 0) return html`<p>No open incidents.</p>`;
  return html`<table><thead><tr><th scope="col">Incident</th><th scope="col">Priority</th><th scope="col">Status</th><th scope="col">Updated</th><th scope="col">Actions</th></tr></thead><tbody>
${incidents.map((i) => {
  const id = `i-${i.slug}`;
  return html`<tr><td><a id="${id}" href="/incidents/${pathPart(i.slug)}">${i.name}</a><br><span class="muted">${i.slug}</span></td><td>${i.priority}</td><td>${i.status}</td><td>${when(i.updatedAt, ctx.now)}</td><td>${i.status === "open" ? actionForm(`/incidents/${pathPart(i.slug)}/ack`, "Acknowledge", ctx, { describedBy: id }) : ""}${actionForm(`/incidents/${pathPart(i.slug)}/resolve`, "Resolve", ctx, { describedBy: id })}</td></tr>`;
})}
</tbody></table>`;
}

export function dashboardPage(d: DashboardData, ctx: PageContext): string {
  const o = d.overview;
  const shown =
    o.rows.length < o.matched
      ? html`<p class="muted">Showing ${o.rows.length} of ${o.matched} matching schedules (failing first); narrow the filter to see others.</p>`
      : "";
  const body = html`<h1>Overview</h1>
${d.killSwitch ? html`<p class="banner">AUTOLOOP_CRON_PAUSED is set in the daemon's environment: every schedule is paused.</p>` : d.allPaused ? html`<p class="banner">All schedules are paused (<code>autoloop-cron resume</code>).</p>` : ""}
<ul class="summary" aria-label="Summary">
<li><strong>${o.total}</strong> schedules</li>
<li><strong>${d.running.length}</strong> running</li>
<li>${firingCount(d.firing)}</li>
<li><strong>${d.incidents.length}</strong> open incidents</li>
<li><strong>${d.outbox.backlog}</strong> alerts waiting to be sent${d.outbox.deadLetters > 0 ? html`, <strong>${d.outbox.deadLetters}</strong> undeliverable` : ""}</li>
</ul>
${d.invalidFiles.length > 0 ? html`<div class="error" role="alert"><p>Schedule files that do not validate (their previous version stays in force):</p><ul>${d.invalidFiles.map((f) => html`<li><code>${f.file}</code>: ${f.problems.map((p) => (p.startsWith(`${f.file}: `) ? p.slice(f.file.length + 2) : p)).join("; ")}</li>`)}</ul></div>` : ""}
<h2 id="alerts">Firing alerts</h2>
${firingSection(d.firing, ctx)}
<h2 id="incidents">Incidents</h2>
${incidentsSection(d.incidents, ctx)}
${(d.windows ?? []).length > 0 ? html`<h2 id="windows">Maintenance windows</h2><ul>${(d.windows ?? []).map((w) => html`<li><strong>${w.name}</strong>: ${w.until ? html`<span class="state paused">open</span> until ${when(w.until, ctx.now)}; matching alerts wait for its end` : w.next ? html`next opens ${when(w.next, ctx.now)}` : "never opens again"} <span class="muted">(schedules ${w.schedules.join(", ") || "any"}; kinds ${w.kinds.join(", ") || "any"})</span></li>`)}</ul>` : ""}
<h2 id="spend">Spend</h2>
${spendTrendSection(d.spendTrend)}
${spendSection(d.spend)}
<h2 id="running">Running now</h2>
${d.running.length === 0 ? html`<p>Nothing running.</p>` : html`<ul>${d.running.map((r) => html`<li><a href="/runs/${pathPart(r.runId)}">${r.runId}</a> <span class="muted">(${r.schedule}, started</span> ${when(r.startedAt, ctx.now)}<span class="muted">)</span></li>`)}</ul>`}
<h2 id="schedules">Schedules</h2>
<form method="get" action="/" role="search"><label for="q">Filter by name</label><input type="search" id="q" name="q" value="${d.filter}"> <button type="submit">Filter</button></form>
${shown}
${o.rows.length === 0 ? html`<p>No schedules${d.filter ? " match the filter" : " loaded"}.</p>` : html`<table><thead><tr><th scope="col">Schedule</th><th scope="col">Cron</th><th scope="col">Next fire</th><th scope="col">State</th><th scope="col">Trend</th><th scope="col">Last runs (newest first)</th><th scope="col">Actions</th></tr></thead><tbody>${o.rows.map((r) => scheduleRow(r, ctx))}</tbody></table>`}`;
  return layout("Overview", body, ctx);
}
