// A schedule's last runs as bars, oldest at the left: a bar's height is how long the run
// took, its colour and side of the baseline how it ended (outcomes.ts), and hovering it shows
// the run, its duration and what it cost (`<title>`). Used large on a schedule's page and as a
// sparkline in the overview's table.
import { formatDuration } from "../../util/duration.js";
import { outcomeLook, outcomeWords } from "./outcomes.js";
import { chart, el, type SvgNode } from "./svg.js";

export interface RunBar {
  runId: string;
  status: string;
  stopReason?: string;
  /** When it ended, or started, or its slot (ISO). */
  at: string;
  durationMs?: number;
  costUsd?: number;
}

export interface RunBarsOptions {
  /** Whose runs: the chart's title names it. */
  schedule: string;
  now: number;
  width: number;
  height: number;
  /** Places on the axis; the newest run is at the right (default 30). */
  slots?: number;
}

const MIN_BAR = 2;

/** How long the run took, or has been running; undefined when the ledger does not say. */
function durationOf(bar: RunBar, now: number): number | undefined {
  if (bar.durationMs !== undefined) return bar.durationMs;
  const started = Date.parse(bar.at);
  return outcomeLook(bar.status).pale && !Number.isNaN(started)
    ? Math.max(0, now - started)
    : undefined;
}

/** "failed (exit 7), 2026-11-27 10:00Z, took 3.2s, cost $0.0123: nightly-2026…". */
export function barTitle(bar: RunBar, now: number): string {
  const ms = durationOf(bar, now);
  const took =
    ms === undefined
      ? ""
      : `, ${outcomeLook(bar.status).pale ? "running for" : "took"} ${formatDuration(ms)}`;
  const cost = bar.costUsd === undefined ? "no cost reported" : `cost $${bar.costUsd.toFixed(4)}`;
  const when = bar.at.replace("T", " ").replace(/:\d\d(\.\d+)?Z$/, "Z");
  const reason = bar.stopReason ? ` (${bar.stopReason})` : "";
  return `${outcomeWords(bar.status)}${reason}, ${when}${took}, ${cost}: ${bar.runId}`;
}

/** "Last 30 runs of nightly, oldest to newest: 27 completed, 3 failed; the longest took 4m2s." */
function summary(bars: readonly RunBar[], o: RunBarsOptions, longest: number): string {
  if (bars.length === 0) return `No runs of ${o.schedule} yet.`;
  const counts = new Map<string, number>();
  for (const b of bars)
    counts.set(outcomeWords(b.status), (counts.get(outcomeWords(b.status)) ?? 0) + 1);
  const tally = [...counts].map(([words, n]) => `${n} ${words}`).join(", ");
  const took = longest > 0 ? `; the longest took ${formatDuration(longest)}` : "";
  return `Last ${bars.length} runs of ${o.schedule}, oldest to newest: ${tally}${took}.`;
}

/** The chart; `newestFirst` as the ledger lists runs (only the newest `slots` are drawn). */
export function runBars(newestFirst: readonly RunBar[], o: RunBarsOptions): SvgNode {
  const slots = o.slots ?? 30;
  const bars = newestFirst.slice(0, slots).reverse();
  const ms = bars.map((b) => durationOf(b, o.now) ?? 0);
  const side = bars.map((b) => outcomeLook(b.status).side);
  const maxUp = Math.max(0, ...ms.filter((_, i) => side[i] === "up"));
  const maxDown = Math.max(0, ...ms.filter((_, i) => side[i] === "down"));
  // The baseline leaves room below it only when some run did not complete.
  const base = side.includes("down") ? Math.round(o.height * 0.62) : o.height - 1;
  const upRoom = base - 1;
  const downRoom = o.height - base - 1;
  const scale = Math.min(
    maxUp > 0 ? upRoom / maxUp : Number.POSITIVE_INFINITY,
    maxDown > 0 ? downRoom / maxDown : Number.POSITIVE_INFINITY,
  );
  const slotWidth = o.width / slots;
  const barWidth = Math.max(1, slotWidth * 0.72);
  const marks = bars.map((bar, i) => {
    const look = outcomeLook(bar.status);
    const left = o.width - (bars.length - i) * slotWidth;
    const x = left + (slotWidth - barWidth) / 2;
    const h = Math.max(MIN_BAR, Number.isFinite(scale) ? ms[i]! * scale : MIN_BAR);
    const shape =
      look.side === "dot"
        ? el("circle", {
            cx: x + barWidth / 2,
            cy: base,
            r: Math.min(2.5, barWidth / 2 + 0.5),
            fill: look.colour,
          })
        : el("rect", {
            x,
            y: look.side === "up" ? base - Math.min(h, upRoom) : base,
            width: barWidth,
            height: Math.min(h, look.side === "up" ? upRoom : downRoom),
            fill: look.colour,
            "fill-opacity": look.pale ? 0.5 : undefined,
            class: `bar ${bar.status}`,
          });
    // The whole column answers the pointer, however short the bar.
    const hit = el("rect", {
      x: left,
      y: 0,
      width: slotWidth,
      height: o.height,
      fill: "transparent",
    });
    return el("g", {}, el("title", {}, barTitle(bar, o.now)), hit, shape);
  });
  const baseline = el("line", {
    x1: 0,
    x2: o.width,
    y1: base,
    y2: base,
    stroke: "#8c959f",
    "stroke-width": 1,
  });
  return chart(o, summary(bars, o, Math.max(maxUp, maxDown)), "run-bars", [baseline, ...marks]);
}
