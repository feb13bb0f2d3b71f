// A schedule's state as a small flat badge (`/schedules/<name>/badge.svg`), as CI and
// Healthchecks badges are put in a README: the schedule's name on the left, its state on the
// right, and both in its `<title>`.
import { chart, el, px } from "./svg.js";

export type BadgeState =
  | "passing"
  | "failing"
  | "paused"
  | "running"
  | "disabled"
  | "no runs"
  | "not found";

const COLOURS: Record<BadgeState, string> = {
  passing: "#1a7f37",
  failing: "#cf222e",
  paused: "#6e7781",
  running: "#0550ae",
  disabled: "#6e7781",
  "no runs": "#6e7781",
  "not found": "#6e7781",
};

/** What a schedule's row says, as far as a badge needs it. */
export interface BadgeFacts {
  state: "active" | "paused" | "disabled" | "failing";
  running: readonly string[];
  recent: readonly { status: string }[];
}

/**
 * The badge's word: paused or disabled first (no run comes), then a run in progress, then
 * failing as the page and the monitor count it (failed runs since the last completed one).
 */
export function badgeState(row: BadgeFacts): BadgeState {
  if (row.state === "paused" || row.state === "disabled") return row.state;
  if (row.running.length > 0) return "running";
  if (row.state === "failing") return "failing";
  const ended = row.recent.some((r) => !["skipped", "running", "pending"].includes(r.status));
  return ended ? "passing" : "no runs";
}

/** Text width in the badge's 11px font, near enough: wide letters and narrow ones average out. */
const textWidth = (text: string) => Math.max(8, [...text].length * 6.6);

const LABEL_MAX = 40;

export function badgeSvg(name: string, state: BadgeState): string {
  const label =
    [...name].length > LABEL_MAX ? `${[...name].slice(0, LABEL_MAX - 1).join("")}…` : name;
  const left = textWidth(label) + 12;
  const right = textWidth(state) + 12;
  const text = (x: number, value: string, width: number) =>
    el(
      "text",
      { x, y: 14, textLength: width, lengthAdjust: "spacingAndGlyphs", fill: "#fff" },
      value,
    );
  const body = [
    el("rect", { width: left, height: 20, fill: "#555" }),
    el("rect", { x: left, width: right, height: 20, fill: COLOURS[state] }),
    el(
      "g",
      { "font-family": "Verdana,DejaVu Sans,Geneva,sans-serif", "font-size": 11 },
      text(6, label, textWidth(label)),
      text(left + 6, state, textWidth(state)),
    ),
  ];
  return chart({ width: Number(px(left + right)), height: 20 }, `${name}: ${state}`, "badge", body)
    .svg;
}
