// The Spend chart: cost per day, stacked by schedule, with each schedule's dollar budget as a
// line in its colour (per_day as it is; per_month as the daily pace that spends it in a
// month). Every segment and line says its figures on hover (`<title>`); the page puts the same
// figures in a table beside it.

import { usd } from "../../scheduler/budget/spend.js";
import type { SpendTrend } from "../../scheduler/budget/spend-trend.js";
import { chart, el, type SvgNode } from "./svg.js";

/** Series colours (Okabe and Ito's, told apart by most colour-blind readers); grey for "the rest". */
const PALETTE = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#000000"];
const REST = "#8c959f";

export function seriesColour(trend: SpendTrend, index: number): string {
  const s = trend.series[index]!;
  return s.schedules > 1 ? REST : PALETTE[index % PALETTE.length]!;
}

/** The days in the month the axis ends in: a per_month budget spread over them. */
function daysInMonth(day: string): number {
  const [y, m] = day.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

export interface BudgetLine {
  series: number;
  kind: "per_day" | "per_month";
  usdPerDay: number;
  text: string;
}

/** The lines the chart draws, each with the words its `<title>` and the table say. */
export function budgetLines(trend: SpendTrend): BudgetLine[] {
  const month = daysInMonth(trend.days.at(-1) ?? "2000-01-01");
  return trend.series.flatMap((s, i) => [
    ...(s.perDayUsd === undefined
      ? []
      : [
          {
            series: i,
            kind: "per_day" as const,
            usdPerDay: s.perDayUsd,
            text: `${s.name}: per_day budget ${usd(s.perDayUsd)}`,
          },
        ]),
    ...(s.perMonthUsd === undefined
      ? []
      : [
          {
            series: i,
            kind: "per_month" as const,
            usdPerDay: s.perMonthUsd / month,
            text: `${s.name}: per_month budget ${usd(s.perMonthUsd)}, ${usd(s.perMonthUsd / month)} a day over ${month} days`,
          },
        ]),
  ]);
}

/** The smallest of 1, 2, 2.5, 5 times a power of ten at or above `n`. */
function niceCeiling(n: number): number {
  if (!(n > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(n));
  return ([1, 2, 2.5, 5, 10].find((f) => f * power >= n * 0.999) ?? 10) * power;
}

const SIZE = { width: 720, height: 260 };
const PLOT = { left: 56, right: 8, top: 8, bottom: 24 };
const PLOT_HEIGHT = SIZE.height - PLOT.top - PLOT.bottom;
const AXIS_TEXT = { "font-size": 11, fill: "#57606a" };

/** The plot's scale: dollars to y, a day's column to x. */
interface Scale {
  y: (amount: number) => number;
  slot: number;
  top: number;
}

/** Gridlines at none, half and all of the scale, each with its amount. */
function yAxis(scale: Scale) {
  return [0, 0.5, 1].map((f) => {
    const at = scale.y(scale.top * f);
    return el(
      "g",
      {},
      el("line", { x1: PLOT.left, x2: SIZE.width - PLOT.right, y1: at, y2: at, stroke: "#d0d7de" }),
      el(
        "text",
        { x: PLOT.left - 6, y: at + 4, "text-anchor": "end", ...AXIS_TEXT },
        usd(scale.top * f),
      ),
    );
  });
}

/** A date under every seventh day, counted back from the last, so today is always labelled. */
function xAxis(days: readonly string[], scale: Scale) {
  return days.flatMap((day, d) =>
    (days.length - 1 - d) % 7 === 0
      ? [
          el(
            "text",
            {
              x: PLOT.left + (d + 0.5) * scale.slot,
              y: SIZE.height - 6,
              "text-anchor": "middle",
              ...AXIS_TEXT,
            },
            day.slice(5),
          ),
        ]
      : [],
  );
}

/** Each day's column: a segment per schedule that spent, stacked in the series' order. */
function stacks(trend: SpendTrend, scale: Scale) {
  return trend.days.flatMap((day, d) => {
    let floor = 0;
    return trend.series.flatMap((s, i) => {
      const cost = s.costUsd[d]!;
      if (cost <= 0) return [];
      const bottom = scale.y(floor);
      floor += cost;
      const unknown =
        s.unknownCost[d]! > 0 ? ` (+ ${s.unknownCost[d]} run(s) of unknown cost)` : "";
      const box = {
        x: PLOT.left + d * scale.slot + scale.slot * 0.12,
        y: scale.y(floor),
        width: scale.slot * 0.76,
        height: Math.max(0.5, bottom - scale.y(floor)),
        fill: seriesColour(trend, i),
      };
      return [el("rect", box, el("title", {}, `${s.name}, ${day}: ${usd(cost)}${unknown}`))];
    });
  });
}

function budgetMarks(trend: SpendTrend, lines: readonly BudgetLine[], scale: Scale) {
  return lines.map((l) =>
    el(
      "line",
      {
        x1: PLOT.left,
        x2: SIZE.width - PLOT.right,
        y1: scale.y(l.usdPerDay),
        y2: scale.y(l.usdPerDay),
        stroke: seriesColour(trend, l.series),
        "stroke-width": 2,
        "stroke-dasharray": l.kind === "per_month" ? "2 3" : "8 4",
      },
      el("title", {}, l.text),
    ),
  );
}

/** A budget this many times the busiest day would flatten the bars: it is named, not drawn. */
const OFF_SCALE = 4;

/** "2 budgets are above this scale (…)", at the plot's top right, when some are. */
function offScaleNote(count: number) {
  if (count === 0) return [];
  const text = `${count} budget line(s) above this scale: the list beside the chart has them`;
  return [
    el(
      "text",
      { x: SIZE.width - PLOT.right, y: PLOT.top + 10, "text-anchor": "end", ...AXIS_TEXT },
      text,
    ),
  ];
}

export function spendChart(trend: SpendTrend): SvgNode {
  const { days, series } = trend;
  const totals = days.map((_, d) => series.reduce((sum, s) => sum + s.costUsd[d]!, 0));
  const busiest = Math.max(...totals, 0);
  const lines = budgetLines(trend);
  const drawn = lines.filter((l) => busiest === 0 || l.usdPerDay <= OFF_SCALE * busiest);
  const top = niceCeiling(Math.max(busiest, ...drawn.map((l) => l.usdPerDay)));
  const scale: Scale = {
    top,
    y: (amount) => PLOT.top + PLOT_HEIGHT - (amount / top) * PLOT_HEIGHT,
    slot: (SIZE.width - PLOT.left - PLOT.right) / Math.max(1, days.length),
  };
  const spent = totals.reduce((a, b) => a + b, 0);
  const off = lines.length - drawn.length;
  const budgets =
    lines.length === 0
      ? ""
      : `; ${drawn.length} budget line(s)${off > 0 ? `, ${off} above the scale` : ""}`;
  const label = `Spend per day over the last ${days.length} days, ${days[0]} to ${days.at(-1)}, stacked by schedule: ${usd(spent)} in all${budgets}. The table beside it has the figures.`;
  const parts = [
    ...yAxis(scale),
    ...xAxis(days, scale),
    ...stacks(trend, scale),
    ...budgetMarks(trend, drawn, scale),
    ...offScaleNote(off),
  ];
  return chart(SIZE, label, "spend-chart", parts);
}
