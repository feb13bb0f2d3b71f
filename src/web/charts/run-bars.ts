// A schedule's last runs as bars, oldest at the left: a bar's height is how long the run
// took, its colour and side of the baseline how it ended (outcomes.ts), and hovering it shows
// the run, its duration and what it cost (`<title>`). Used large on a schedule's page and as a
// sparkline in the overview's table.
import { formatDuration } from "../../util/duration.js";
import { type OutcomeLook, outcomeLook, outcomeWords } from "./outcomes.js";
import { chart, el, px, type SvgNode } from "./svg.js";

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
  /**
   * "full": each bar has a `<title>` (the run, its time, duration and cost) and its whole column
   * answers the pointer; "short": a sparkline, its bars drawn together under the chart's title.
   */
  detail?: "full" | "short";
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

/** "failed (backend_failed), 2026-11-27 10:00Z, took 3.2s, cost $0.0123: nightly-2026…". */
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

/** Where each bar goes: its column, its box (or dot), on a baseline shared by all. */
interface Placed {
  bar: RunBar;
  look: OutcomeLook;
  column: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

function place(bars: readonly RunBar[], o: RunBarsOptions, slots: number) {
  const ms = bars.map((b) => durationOf(b, o.now) ?? 0);
  const side = bars.map((b) => outcomeLook(b.status).side);
  const maxUp = Math.max(0, ...ms.filter((_, i) => side[i] === "up"));
  const maxDown = Math.max(0, ...ms.filter((_, i) => side[i] === "down"));
  // The baseline leaves room below it only when some run did not complete.
  const base = side.includes("down") ? Math.round(o.height * 0.62) : o.height - 1;
  const room = { up: base - 1, down: o.height - base - 1, dot: 0 };
  const scale = Math.min(
    maxUp > 0 ? room.up / maxUp : Number.POSITIVE_INFINITY,
    maxDown > 0 ? room.down / maxDown : Number.POSITIVE_INFINITY,
  );
  const column = o.width / slots;
  const width = Math.max(1, column * 0.72);
  const placed = bars.map((bar, i): Placed => {
    const look = outcomeLook(bar.status);
    const left = o.width - (bars.length - i) * column;
    const tall = Math.max(MIN_BAR, Number.isFinite(scale) ? ms[i]! * scale : MIN_BAR);
    const height = Math.min(tall, room[look.side]);
    const y = look.side === "up" ? base - height : base;
    return { bar, look, column: left, x: left + (column - width) / 2, y, width, height };
  });
  return { placed, base, column, longest: Math.max(maxUp, maxDown) };
}

const dot = (p: Placed, base: number) =>
  el("circle", {
    cx: p.x + p.width / 2,
    cy: base,
    r: Math.min(2.5, p.width / 2 + 0.5),
    fill: p.look.colour,
  });

/** Each bar with its own `<title>`, its whole column answering the pointer. */
function fullMarks(placed: readonly Placed[], base: number, column: number, o: RunBarsOptions) {
  return placed.map((p) => {
    const shape =
      p.look.side === "dot"
        ? dot(p, base)
        : el("rect", {
            x: p.x,
            y: p.y,
            width: p.width,
            height: p.height,
            fill: p.look.colour,
            "fill-opacity": p.look.pale ? 0.5 : undefined,
            class: `bar ${p.bar.status}`,
          });
    const hit = el("rect", {
      x: p.column,
      y: 0,
      width: column,
      height: o.height,
      fill: "transparent",
    });
    return el("g", {}, el("title", {}, barTitle(p.bar, o.now)), hit, shape);
  });
}

/** A sparkline: one path per outcome (a table of many rows stays small); the chart's title says it all. */
function sparkMarks(placed: readonly Placed[], base: number) {
  const paths = new Map<string, { look: OutcomeLook; d: string }>();
  for (const p of placed) {
    if (p.look.side === "dot") continue;
    const key = `${p.look.colour}${p.look.pale}`;
    const path = paths.get(key) ?? { look: p.look, d: "" };
    path.d += `M${px(p.x)} ${px(p.y)}h${px(p.width)}v${px(p.height)}h-${px(p.width)}z`;
    paths.set(key, path);
  }
  return [
    ...[...paths.values()].map(({ look, d }) =>
      el("path", { d, fill: look.colour, "fill-opacity": look.pale ? 0.5 : undefined }),
    ),
    ...placed.filter((p) => p.look.side === "dot").map((p) => dot(p, base)),
  ];
}

/** The chart; `newestFirst` as the ledger lists runs (only the newest `slots` are drawn). */
export function runBars(newestFirst: readonly RunBar[], o: RunBarsOptions): SvgNode {
  const slots = o.slots ?? 30;
  const bars = newestFirst.slice(0, slots).reverse();
  const { placed, base, column, longest } = place(bars, o, slots);
  const marks =
    o.detail === "short" ? sparkMarks(placed, base) : fullMarks(placed, base, column, o);
  const baseline = el("line", {
    x1: 0,
    x2: o.width,
    y1: base,
    y2: base,
    stroke: "#8c959f",
    "stroke-width": 1,
  });
  return chart(o, summary(bars, o, longest), "run-bars", [baseline, ...marks]);
}
