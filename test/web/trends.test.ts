/// <reference lib="dom" />
// Trends on the status page against the real daemon, over a month of runs written into its
// ledger: a schedule's page with its last runs as bars, the overview's sparklines and Spend
// chart (with its table), and the badges; each SVG parsed as XML, and the charts drawn in
// headless Chromium. SCREENSHOTS_DIR=dir saves screenshots (`npm run screenshots`).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ResultPromise } from "execa";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cleanupTempDirs,
  startDaemonProcess,
  statusWithForeignHost,
  tempDir,
} from "../helpers/cli.js";
import { type PastRun, seedHistory } from "../helpers/seed-history.js";
import { waitFor } from "../helpers/wait.js";
import { xmlProblem } from "../helpers/xml.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);

const preset = (name: string, budget: string) => `[[schedule]]
name = "${name}"
cron = "0 0 1 1 *"
preset = "demo"
objective = "Write the weekly report"
project_dir = "../work"
budget = ${budget}
`;
const command = (name: string, script: string) => `[[schedule]]
name = "${name}"
cron = "0 0 1 1 *"
kind = "command"
command = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(script)}]
project_dir = "../work"
`;

const DAY = 86_400_000;

/** A month of nightly runs (a few failures, a timeout, a skipped slot), a cheaper schedule
 * every third day, and a command schedule that has been failing since yesterday. */
function history(now: number): PastRun[] {
  const runs: PastRun[] = [];
  for (let d = 29; d >= 0; d--) {
    const at = new Date(now - d * DAY - 3_600_000);
    const status =
      d === 20 ? "skipped" : d === 12 ? "timed_out" : d % 7 === 3 ? "failed" : "completed";
    runs.push({
      schedule: "nightly",
      at,
      status,
      durationMs: status === "timed_out" ? 300_000 : 60_000 + ((d * 37) % 11) * 15_000,
      costUsd: status === "skipped" ? undefined : 1.2 + ((d * 53) % 17) / 6,
      ...(status === "failed" && { exitCode: 1, stopReason: "backend_failed" }),
    });
    if (d % 3 === 0)
      runs.push({
        schedule: "docs-drift",
        at: new Date(at.getTime() + 600_000),
        status: "completed",
        durationMs: 45_000,
        costUsd: 0.6 + (d % 4) / 5,
      });
  }
  for (let i = 0; i < 8; i++)
    runs.push({
      schedule: "flaky",
      at: new Date(now - (8 - i) * 6 * 3_600_000),
      status: i >= 5 ? "failed" : "completed",
      durationMs: 4_000 + i * 500,
      exitCode: i >= 5 ? 7 : 0,
    });
  return runs;
}

let root: string;
let url: string;
let daemon: ResultPromise;

beforeAll(async () => {
  root = tempDir("autoloop-trends-");
  mkdirSync(join(root, "schedules"));
  mkdirSync(join(root, "work"));
  const config = join(root, "autoloop-cron.toml");
  writeFileSync(
    config,
    'state_dir = "state"\n[http]\nlisten = "127.0.0.1:0"\n[defaults]\ncatch_up = "none"\n',
  );
  writeFileSync(
    join(root, "schedules", "all.toml"),
    [
      preset("nightly", "{ per_run = 5.0, per_day = 4.0, per_month = 90.0 }"),
      preset("docs-drift", "{ per_month = 40.0 }"),
      command("flaky", "process.exit(7)"),
      command("sleeper", "setTimeout(() => {}, 60000)"),
      command("held", "process.exit(0)"),
    ].join("\n"),
  );
  seedHistory(join(root, "state"), history(Date.now()));
  writeFileSync(
    join(root, "state", "paused.json"),
    JSON.stringify({ all: false, schedules: ["held"] }),
  );
  ({ daemon, url } = await startDaemonProcess(config));
}, 60_000);

afterAll(async () => {
  daemon?.kill("SIGTERM");
  await daemon;
  cleanupTempDirs();
});

const svgsOf = (page: string) => [...page.matchAll(/<svg[\s\S]*?<\/svg>/g)].map((m) => m[0]);

const badge = async (name: string) => {
  const res = await fetch(`${url}/schedules/${name}/badge.svg`);
  const text = await res.text();
  expect(xmlProblem(text), text).toBeUndefined();
  return {
    status: res.status,
    headers: res.headers,
    word: /<title>[^<]*: ([^<]*)<\/title>/.exec(text)?.[1],
  };
};

describe("trends over HTTP", () => {
  it("serves a badge per schedule: passing, failing, paused, running; cacheable a minute", async () => {
    const nightly = await badge("nightly");
    expect(nightly).toMatchObject({ status: 200, word: "passing" });
    expect(nightly.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    expect(nightly.headers.get("cache-control")).toBe("public, max-age=60");
    expect(nightly.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect((await badge("flaky")).word).toBe("failing");
    expect((await badge("held")).word).toBe("paused");
    expect(await badge("nope")).toMatchObject({ status: 404, word: "not found" });
    // The page's host rule holds for badges too (DNS rebinding).
    const rebound = await statusWithForeignHost(`${url}/schedules/nightly/badge.svg`);
    expect(rebound).toBe(421);

    const token = /name="token" value="([^"]+)"/.exec(await (await fetch(`${url}/`)).text())![1]!;
    const post = (path: string) =>
      fetch(`${url}${path}`, {
        method: "POST",
        headers: {
          accept: "application/json",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ token }),
      });
    const fired = (await (await post("/schedules/sleeper/fire")).json()) as { runId: string };
    await waitFor(
      async () => (await badge("sleeper")).word === "running",
      "the sleeper's badge running",
      30_000,
      100,
    );
    await post(`/runs/${fired.runId}/stop`);
  }, 60_000);

  it("shows a schedule's page: its last 30 runs as bars and as a table, its spend, its badge", async () => {
    const res = await fetch(`${url}/schedules/nightly`);
    expect(res.status).toBe(200);
    const page = await res.text();
    const [bars] = svgsOf(page).filter((s) => s.includes('class="run-bars"'));
    expect(xmlProblem(bars!)).toBeUndefined();
    expect(bars).toContain("<title>Last 30 runs of nightly, oldest to newest: ");
    expect(bars!.match(/class="bar /g)).toHaveLength(29);
    expect(bars).toContain("<circle");
    expect(bars).toMatch(/<title>timed out, [^<]*took 5m, cost \$\d\.\d{4}: nightly-/);
    expect(page.match(/<tr><td><a href="\/runs\/nightly-/g)).toHaveLength(30);
    expect(page).toContain('<img src="/schedules/nightly/badge.svg" alt="nightly: passing">');
    expect(page).toContain(`![nightly](${url}/schedules/nightly/badge.svg)`);
    expect(page).toContain("nightly: per_day budget $4.00");
    expect((await fetch(`${url}/schedules/nope`)).status).toBe(404);
  });

  it("puts a sparkline in each schedule's row and the Spend chart beside its table", async () => {
    const page = await (await fetch(`${url}/`)).text();
    for (const svg of svgsOf(page)) expect(xmlProblem(svg), svg.slice(0, 200)).toBeUndefined();
    const row = /<tr id="s-flaky">[\s\S]*?<\/tr>/.exec(page)![0];
    expect(row).toContain("<title>Last 8 runs of flaky, oldest to newest: 5 completed, 3 failed");
    const chart = svgsOf(page).find((s) => s.includes('class="spend-chart"'))!;
    expect(chart).toMatch(/<title>nightly, \d{4}-\d\d-\d\d: \$\d+\.\d\d<\/title>/);
    expect(chart).toContain("<title>docs-drift: per_month budget $40.00");
    // The table beside it: a row per day of the chart.
    const table = /<div class="figures"[\s\S]*?<\/div>/.exec(page)![0];
    expect(table.match(/<tr><th scope="row">\d{4}-\d\d-\d\d<\/th>/g)).toHaveLength(30);
  });
});

describe.skipIf(!haveChromium)("trends in Chromium", () => {
  let browser: Browser;
  const shots = process.env.SCREENSHOTS_DIR;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run"],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it("draws the bars, the sparklines, the Spend chart and the badge", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await page.goto(`${url}/schedules/nightly`);
    const bars = page.locator("svg.run-bars");
    expect((await bars.boundingBox())!.width).toBeGreaterThan(600);
    expect(await bars.locator("rect.bar").count()).toBe(29);
    // The chart's name, as a screen reader reads it.
    expect(await bars.getAttribute("aria-label")).toMatch(/^Last 30 runs of nightly/);
    // The badge is an image the browser can draw.
    await expect
      .poll(() =>
        page
          .locator("#badge + p img")
          .evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth),
      )
      .toBeGreaterThan(60);
    if (shots !== undefined)
      await page.screenshot({ path: join(shots, "status-schedule.png"), fullPage: true });

    await page.goto(`${url}/`);
    expect(await page.locator("#s-nightly svg.run-bars").count()).toBe(1);
    const chart = page.locator("svg.spend-chart");
    expect((await chart.boundingBox())!.height).toBeGreaterThan(200);
    // Every inline SVG parses as XML in the browser too.
    const bad = await page.$$eval(
      "svg",
      (svgs) =>
        svgs.filter((s) =>
          new DOMParser()
            .parseFromString(s.outerHTML, "image/svg+xml")
            .querySelector("parsererror"),
        ).length,
    );
    expect(bad).toBe(0);
    if (shots !== undefined) {
      const spend = page.locator("#spend");
      await spend.scrollIntoViewIfNeeded();
      const top = (await spend.boundingBox())!;
      const trend = (await page.locator(".trend").boundingBox())!;
      await page.screenshot({
        path: join(shots, "status-spend.png"),
        fullPage: true,
        clip: { x: 0, y: top.y - 8, width: 1280, height: trend.y + trend.height - top.y + 24 },
      });
    }
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
