// The status page's charts as SVG text: well-formed (parsed strictly), named by a <title>,
// escaping what they show, telling outcomes apart without colour, and the badge's states.
import { describe, expect, it } from "vitest";
import { badgeState, badgeSvg } from "../../src/web/charts/badge.js";
import { type RunBar, runBars } from "../../src/web/charts/run-bars.js";
import { budgetLines, spendChart } from "../../src/web/charts/spend-chart.js";
import { xmlProblem } from "../helpers/xml.js";

const now = Date.parse("2026-11-27T12:00:00Z");
const bar = (i: number, status: string, extra: Partial<RunBar> = {}): RunBar => ({
  runId: `nightly-20261127T${String(i).padStart(4, "0")}-x`,
  status,
  at: new Date(now - i * 3_600_000).toISOString(),
  durationMs: 60_000 * (i + 1),
  ...extra,
});

/** Each bar's group: its <title> and its shape (rect, or circle for a skipped slot). */
function shapes(svg: string) {
  return [
    ...svg.matchAll(/<g><title>([^<]*)<\/title><rect[^>]*\/>(<(rect|circle)[^>]*\/>)<\/g>/g),
  ].map((m) => {
    const attr = (name: string) => Number(new RegExp(` ${name}="([^"]+)"`).exec(m[2]!)?.[1]);
    return { title: m[1]!, kind: m[3]!, y: attr("y"), height: attr("height"), cy: attr("cy") };
  });
}
const baseline = (svg: string) => Number(/<line [^>]*y1="([^"]+)"/.exec(svg)![1]);

describe("a schedule's runs as bars", () => {
  it("is well-formed, titled, and escapes what runs wrote", () => {
    const svg = runBars(
      [bar(0, "failed", { stopReason: '<script>alert("x")</script> & more' }), bar(1, "completed")],
      { schedule: "night<ly>", now, width: 720, height: 160 },
    ).svg;
    expect(xmlProblem(svg)).toBeUndefined();
    expect(svg).toMatch(
      /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]* role="img" aria-label="Last 2 runs of night&lt;ly&gt;/,
    );
    expect(svg).toContain(
      "<title>Last 2 runs of night&lt;ly&gt;, oldest to newest: 1 completed, 1 failed; the longest took 2m.</title>",
    );
    expect(svg).not.toContain("<script>");
    expect(svg).toContain("failed (&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more)");
  });

  it("puts completed runs above the line, the others below it, skipped slots on it", () => {
    const runs = [
      bar(0, "completed"),
      bar(1, "failed"),
      bar(2, "timed_out"),
      bar(3, "skipped", { durationMs: undefined }),
      bar(4, "killed"),
    ];
    const svg = runBars(runs, { schedule: "nightly", now, width: 300, height: 100 }).svg;
    const base = baseline(svg);
    const drawn = shapes(svg);
    expect(drawn).toHaveLength(5);
    // Oldest at the left: killed, skipped, timed out, failed, completed.
    const [killed, skipped, timedOut, failed, completed] = drawn;
    expect(completed!.title).toMatch(
      /^completed, 2026-11-27 12:00Z, took 1m, no cost reported: nightly-/,
    );
    expect(completed!.y + completed!.height).toBeCloseTo(base);
    for (const down of [killed!, timedOut!, failed!]) expect(down.y).toBeCloseTo(base);
    expect(skipped!.kind).toBe("circle");
    expect(skipped!.cy).toBeCloseTo(base);
    // Height is duration: the longer failure hangs further.
    expect(killed!.height).toBeGreaterThan(failed!.height);
  });

  it("shows cost on hover, a running run's time so far, and at most the slots it has", () => {
    const runs = [
      bar(0, "running", { durationMs: undefined, at: new Date(now - 90_000).toISOString() }),
      bar(1, "completed", { costUsd: 0.0123 }),
      ...Array.from({ length: 40 }, (_, i) => bar(i + 2, "completed")),
    ];
    const svg = runBars(runs, { schedule: "nightly", now, width: 120, height: 26 }).svg;
    expect(xmlProblem(svg)).toBeUndefined();
    const drawn = shapes(svg);
    expect(drawn).toHaveLength(30);
    expect(drawn.at(-1)!.title).toMatch(/^running, .*, running for 1m30s, no cost reported/);
    expect(drawn.at(-2)!.title).toContain("cost $0.0123");
    expect(svg).toContain('fill-opacity="0.5"');
  });

  it("draws a sparkline's bars as one path per outcome, small enough for a table of many", () => {
    const runs = Array.from({ length: 30 }, (_, i) =>
      bar(i, i % 7 === 3 ? "failed" : i === 9 ? "skipped" : "completed", { costUsd: 0.5 }),
    );
    const svg = runBars(runs, {
      schedule: "nightly",
      now,
      width: 120,
      height: 26,
      detail: "short",
    }).svg;
    expect(xmlProblem(svg)).toBeUndefined();
    expect(svg.match(/<title>/g)).toHaveLength(1);
    expect(svg).toContain(
      "<title>Last 30 runs of nightly, oldest to newest: 25 completed, 4 failed, 1 skipped",
    );
    const paths = [...svg.matchAll(/<path d="([^"]+)" fill="([^"]+)"/g)];
    expect(paths.map((p) => [p[2], p[1]!.match(/M/g)!.length])).toEqual([
      ["#1a7f37", 25],
      ["#cf222e", 4],
    ]);
    expect(svg.match(/<circle /g)).toHaveLength(1);
    expect(svg.length).toBeLessThan(2000);
  });

  it("says so when there are no runs", () => {
    const svg = runBars([], { schedule: "nightly", now, width: 120, height: 26 }).svg;
    expect(xmlProblem(svg)).toBeUndefined();
    expect(svg).toContain("<title>No runs of nightly yet.</title>");
  });
});

const trend = {
  days: ["2026-11-25", "2026-11-26", "2026-11-27"],
  series: [
    {
      name: "nightly",
      schedules: 1,
      costUsd: [3, 0, 4.5],
      unknownCost: [0, 0, 1],
      perDayUsd: 5,
      perMonthUsd: 90,
    },
    { name: "a<b>&c", schedules: 1, costUsd: [1, 2, 0], unknownCost: [0, 0, 0] },
    { name: "3 other schedules", schedules: 3, costUsd: [0.5, 0.5, 0.5], unknownCost: [0, 0, 0] },
  ],
};

describe("the Spend chart", () => {
  it("is well-formed and titled, a segment per schedule and day with its figure", () => {
    const svg = spendChart(trend).svg;
    expect(xmlProblem(svg)).toBeUndefined();
    expect(svg).toMatch(
      /<title>Spend per day over the last 3 days, 2026-11-25 to 2026-11-27, stacked by schedule: \$12.00 in all; 2 budget line\(s\)/,
    );
    const segments = [...svg.matchAll(/<rect [^>]*><title>([^<]*)<\/title><\/rect>/g)].map(
      (m) => m[1],
    );
    expect(segments).toEqual([
      "nightly, 2026-11-25: $3.00",
      "a&lt;b&gt;&amp;c, 2026-11-25: $1.00",
      "3 other schedules, 2026-11-25: $0.50",
      "a&lt;b&gt;&amp;c, 2026-11-26: $2.00",
      "3 other schedules, 2026-11-26: $0.50",
      "nightly, 2026-11-27: $4.50 (+ 1 run(s) of unknown cost)",
      "3 other schedules, 2026-11-27: $0.50",
    ]);
  });

  it("draws each dollar budget as a line: per_day as it is, per_month as a day's share", () => {
    expect(budgetLines(trend).map((l) => [l.kind, l.usdPerDay, l.text])).toEqual([
      ["per_day", 5, "nightly: per_day budget $5.00"],
      ["per_month", 3, "nightly: per_month budget $90.00, $3.00 a day over 30 days"],
    ]);
    const svg = spendChart(trend).svg;
    const lines = [
      ...svg.matchAll(/<line [^>]*stroke-dasharray="([^"]+)"[^>]*><title>([^<]*)<\/title>/g),
    ];
    expect(lines.map((l) => [l[1], l[2]])).toEqual([
      ["8 4", "nightly: per_day budget $5.00"],
      ["2 3", "nightly: per_month budget $90.00, $3.00 a day over 30 days"],
    ]);
  });
});

describe("the Spend chart's scale", () => {
  it("names a budget far above the bars instead of flattening them under it", () => {
    const far = {
      days: ["2026-11-26", "2026-11-27"],
      series: [
        { name: "cheap", schedules: 1, costUsd: [0.04, 0.05], unknownCost: [0, 0], perDayUsd: 500 },
      ],
    };
    const svg = spendChart(far).svg;
    expect(xmlProblem(svg)).toBeUndefined();
    expect(svg).toContain("$0.09 in all");
    expect(svg).toContain("0 budget line(s), 1 above the scale");
    expect(svg).not.toContain("stroke-dasharray");
    // The busiest day fills the plot: the scale's top is $0.05, not $500.
    expect(svg).toMatch(/>\$0\.05<\/text>/);
  });
});

describe("the badge", () => {
  it("is a standalone SVG named by its title", () => {
    for (const state of ["passing", "failing", "paused", "running"] as const) {
      const svg = badgeSvg("night<ly>", state);
      expect(xmlProblem(svg)).toBeUndefined();
      expect(svg).toContain(`<title>night&lt;ly&gt;: ${state}</title>`);
      expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
    }
    expect(badgeSvg("nightly", "passing")).toContain('fill="#1a7f37"');
    expect(badgeSvg("nightly", "failing")).toContain('fill="#cf222e"');
  });

  it("says paused before running, running before failing, and passing after a completion", () => {
    const row = (
      state: "active" | "paused" | "disabled" | "failing",
      running: string[],
      statuses: string[],
    ) => badgeState({ state, running, recent: statuses.map((status) => ({ status })) });
    expect(row("paused", ["r"], ["failed"])).toBe("paused");
    expect(row("disabled", [], [])).toBe("disabled");
    expect(row("failing", ["r"], ["running", "failed"])).toBe("running");
    expect(row("failing", [], ["failed"])).toBe("failing");
    expect(row("active", [], ["skipped", "completed"])).toBe("passing");
    expect(row("active", [], ["skipped"])).toBe("no runs");
  });
});

describe("the well-formedness check the tests above rely on", () => {
  it("refuses what a browser's XML parser refuses", () => {
    expect(xmlProblem('<svg><title>a &amp; b</title><rect x="1"/></svg>')).toBeUndefined();
    expect(xmlProblem("<svg><title>a</svg>")).toMatch(/closes nothing open/);
    expect(xmlProblem("<svg><rect></svg>")).toBeDefined();
    expect(xmlProblem("<svg><title>a & b</title></svg>")).toMatch(/bare &/);
    expect(xmlProblem('<svg><rect x="1" x="2"/></svg>')).toMatch(/repeated attribute/);
    expect(xmlProblem("<svg><rect x=1/></svg>")).toMatch(/malformed tag/);
    expect(xmlProblem("<svg></svg><svg></svg>")).toBeDefined();
    expect(xmlProblem("<svg><title>")).toMatch(/never closed/);
  });
});
