// The Spend chart with its legend and, beside it, the same figures as a table: the chart is
// for the eye, the table for a screen reader and for anyone who wants the numbers.

import { usd } from "../scheduler/budget/spend.js";
import type { SpendTrend } from "../scheduler/budget/spend-trend.js";
import { budgetLines, seriesColour, spendChart } from "./charts/spend-chart.js";
import { el } from "./charts/svg.js";
import { Html, html } from "./html.js";

/** A small square of a series' colour, beside its name. */
const swatch = (colour: string) =>
  new Html(
    el(
      "svg",
      { width: 10, height: 10, viewBox: "0 0 10 10", "aria-hidden": "true", class: "swatch" },
      el("rect", { width: 10, height: 10, fill: colour }),
    ).svg,
  );

function legend(trend: SpendTrend) {
  const lines = budgetLines(trend);
  return html`<ul class="legend" aria-label="Schedules in the chart">${trend.series.map((s, i) => html`<li>${swatch(seriesColour(trend, i))} ${s.name}</li>`)}</ul>
${lines.length > 0 ? html`<p class="muted">Lines: the budgets (dashed: per_day; dotted: per_month spread over the month's days).</p>` : ""}`;
}

function figures(trend: SpendTrend) {
  const { days, series } = trend;
  const cell = (s: SpendTrend["series"][number], d: number) =>
    html`<td>${s.costUsd[d]! > 0 ? usd(s.costUsd[d]!) : html`<span class="muted">—</span>`}${s.unknownCost[d]! > 0 ? html` <span class="muted">+ ${s.unknownCost[d]!} unknown</span>` : ""}</td>`;
  const budgets = budgetLines(trend);
  return html`<div class="figures" tabindex="0" role="region" aria-label="Spend per day, the chart's figures"><table>
<caption class="sr-only">Spend per day by schedule, newest day first</caption>
<thead><tr><th scope="col">Day</th>${series.map((s) => html`<th scope="col">${s.name}</th>`)}<th scope="col">Total</th></tr></thead>
<tbody>${[...days.keys()].reverse().map((d) => html`<tr><th scope="row">${days[d]!}</th>${series.map((s) => cell(s, d))}<td>${usd(series.reduce((sum, s) => sum + s.costUsd[d]!, 0))}</td></tr>`)}</tbody>
</table>${budgets.length > 0 ? html`<ul class="budgets" aria-label="Budgets">${budgets.map((l) => html`<li>${l.text}</li>`)}</ul>` : ""}</div>`;
}

export function spendTrendSection(trend: SpendTrend | undefined) {
  if (trend === undefined || trend.series.length === 0) return "";
  return html`<div class="trend"><figure><figcaption>Cost per day, last ${trend.days.length} days (each schedule's days in its own zone)</figcaption>${new Html(spendChart(trend).svg)}${legend(trend)}</figure>
${figures(trend)}</div>`;
}
