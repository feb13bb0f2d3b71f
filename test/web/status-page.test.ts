/// <reference lib="dom" />
// The status page against the real daemon (`autoloop-cron start` as a child process): read
// over plain HTTP, guarded against cross-site and rebinding requests, and driven in headless
// Chromium (Debian's package, through playwright-core): live updates without a reload, the
// operator's buttons, a run's and an incident's pages. SCREENSHOTS_DIR=dir saves screenshots.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AUTOLOOP_CRON,
  cleanEnv,
  cleanupTempDirs,
  startDaemonProcess,
  statusWithForeignHost,
  tempDir,
} from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium)
  console.warn(
    `status page browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`,
  );

const schedules = `[[schedule]]
name = "report"
cron = "0 0 1 1 *"
preset = "demo"
objective = "Write the weekly report"
project_dir = "../work"
env = { AUTOLOOP_DEMO_DELAY_MS = "50" }

[[schedule]]
name = "asker"
cron = "0 0 1 1 *"
preset = "demo"
objective = "Ship the release after a human's sign-off"
project_dir = "../work"
env = { AUTOLOOP_DEMO_DELAY_MS = "50" }

[[schedule]]
name = "sleeper"
cron = "0 0 1 1 *"
kind = "command"
command = [${JSON.stringify(process.execPath)}, "-e", "setTimeout(() => {}, 60000)"]
project_dir = "../work"

[[schedule]]
name = "exit-seven"
cron = "*/2 * * * * *"
kind = "command"
command = [${JSON.stringify(process.execPath)}, "-e", "console.error('build broke: missing module left-pad'); process.exit(7)"]
project_dir = "../work"
`;

let root: string;
let config: string;
let url: string;
let daemon: ResultPromise;

const cron = (...args: string[]) =>
  execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
  });

beforeAll(async () => {
  root = tempDir("autoloop-page-");
  mkdirSync(join(root, "schedules"));
  mkdirSync(join(root, "work"));
  config = join(root, "autoloop-cron.toml");
  writeFileSync(
    config,
    'state_dir = "state"\n[http]\nlisten = "127.0.0.1:0"\n[defaults]\ncatch_up = "none"\n',
  );
  writeFileSync(join(root, "schedules", "all.toml"), schedules);
  ({ daemon, url } = await startDaemonProcess(config));
}, 60_000);

afterAll(async () => {
  daemon?.kill("SIGTERM");
  await daemon;
  cleanupTempDirs();
});

/** The token of the page's forms. */
async function pageToken(): Promise<string> {
  const text = await (await fetch(`${url}/`)).text();
  return /name="token" value="([^"]+)"/.exec(text)![1]!;
}

const post = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(body),
  });

describe("the status page over HTTP", () => {
  it("serves the overview, its assets and 404s as server-rendered HTML", async () => {
    const res = await fetch(`${url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const text = await res.text();
    expect(text).toContain("<h1>Overview</h1>");
    expect(text).toContain('id="s-report"');
    expect(text).toContain("*/2 * * * * *");
    expect((await fetch(`${url}/assets/status.css`)).headers.get("content-type")).toContain(
      "text/css",
    );
    expect((await fetch(`${url}/runs/report-20260101T0000-nosuch`)).status).toBe(404);
    expect((await fetch(`${url}/incidents/nothing-here`)).status).toBe(404);
    expect((await fetch(`${url}/runs/%E0`)).status).toBe(404);
    const head = await fetch(`${url}/events`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const filtered = await (await fetch(`${url}/?q=exit`)).text();
    expect(filtered).toContain('id="s-exit-seven"');
    expect(filtered).not.toContain('id="s-report"');
  });

  it("refuses another site's requests, rebinding hosts and forms without the token", async () => {
    const token = await pageToken();
    const host = new URL(url).host;
    const evil = await post(
      "/schedules/report/pause",
      { token },
      { origin: "http://evil.example" },
    );
    expect(evil.status).toBe(403);
    expect(await evil.text()).toContain("evil.example");
    const crossSite = await post(
      "/schedules/report/pause",
      { token },
      { "sec-fetch-site": "cross-site" },
    );
    expect(crossSite.status).toBe(403);
    const noToken = await post("/schedules/report/pause", {}, { origin: `http://${host}` });
    expect(noToken.status).toBe(403);
    expect(await noToken.text()).toContain("token");
    // fetch() will not send another Host: a raw request does, as a rebinding browser would.
    const rebound = await statusWithForeignHost(`${url}/`);
    expect(rebound).toBe(421);
    // Nothing above paused it.
    const listed = JSON.parse((await cron("list", "--json")).stdout);
    expect(listed.schedules.find((s: { name: string }) => s.name === "report").paused).toBe(false);

    // The page's own form: the same code path as `autoloop-cron pause`.
    const ok = await post(
      "/schedules/report/pause",
      { token, back: "/?q=rep" },
      { origin: `http://${host}` },
    );
    expect(ok.status).toBe(303);
    const back = ok.headers.get("location")!;
    expect(back).toMatch(/^\/\?q=rep&flash=[0-9a-f]+$/);
    const pausedPage = await (await fetch(`${url}${back}`)).text();
    expect(pausedPage).toContain("report paused");
    // A paused schedule offers Resume, not a "Fire now" the daemon would refuse.
    const row = /<tr id="s-report">[\s\S]*?<\/tr>/.exec(pausedPage)![0];
    expect(row).toContain("Resume");
    expect(row).not.toContain("Fire now");
    const paused = JSON.parse((await cron("list", "--json")).stdout);
    expect(paused.schedules.find((s: { name: string }) => s.name === "report").paused).toBe(true);
    const resumed = await post(
      "/schedules/report/resume",
      { token },
      { accept: "application/json" },
    );
    expect(await resumed.json()).toEqual({ ok: true, message: "report resumed" });
    const unknown = await post("/schedules/nope/fire", { token }, { accept: "application/json" });
    expect(unknown.status).toBe(409);
    expect(((await unknown.json()) as { message: string }).message).toContain(
      'unknown schedule "nope"',
    );
    // A back link elsewhere is not followed.
    const away = await post("/schedules/report/resume", { token, back: "//evil.example/x" });
    expect(away.headers.get("location")).toMatch(/^\/\?flash=/);
  });
});

describe.skipIf(!haveChromium)("the status page in Chromium", () => {
  let browser: Browser;
  const shots = process.env.SCREENSHOTS_DIR;
  const shot = async (page: Page, name: string) => {
    if (shots !== undefined)
      await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  };

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it("updates live, fires a run, shows it, and acknowledges an incident", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${url}/`);
    await expect.poll(() => page.locator("#live").textContent(), { timeout: 10_000 }).toBe("Live");
    await page.evaluate(() => {
      (window as unknown as { loadedOnce: number }).loadedOnce = 1;
    });
    // The failing schedule's incident turns up without a reload (on a slow machine it may be
    // there before the page: then only the later live updates show the page updating).
    const incident = page.locator("#incidents + table a[href^='/incidents/']").first();
    const beforePage = (await incident.count()) > 0;
    await incident.waitFor({ timeout: 30_000 });
    expect(
      await page.evaluate(() => (window as unknown as { loadedOnce?: number }).loadedOnce),
    ).toBe(1);
    if (!beforePage)
      expect(Number(await page.locator("html").getAttribute("data-updates"))).toBeGreaterThan(0);
    await expect.poll(() => page.locator("#s-exit-seven .state").textContent()).toBe("failing");

    // Fire now: the browser comes back to the overview with the run's id, and the run's mark
    // turns completed live.
    await page.locator("#s-report").getByRole("button", { name: "Fire now" }).click();
    const notice = await page.getByRole("status").filter({ hasText: "launching" }).textContent();
    const runId = /launching (\S+)/.exec(notice ?? "")![1]!;
    await page.evaluate(() => {
      (window as unknown as { loadedOnce: number }).loadedOnce = 2;
    });
    const done = page.locator(`#s-report a.mark.completed[href="/runs/${runId}"]`);
    await done.waitFor({ timeout: 30_000 });
    expect(
      await page.evaluate(() => (window as unknown as { loadedOnce?: number }).loadedOnce),
    ).toBe(2);
    await shot(page, "status-overview");

    // The run's page: launch, outcome, journal and output.
    await done.click();
    await expect
      .poll(() => page.getByRole("heading", { level: 1 }).textContent())
      .toBe(`Run ${runId}`);
    const main = page.locator("main");
    await expect.poll(() => main.textContent()).toContain("completed");
    await expect.poll(() => main.textContent()).toContain("loop.start");
    await expect.poll(() => main.textContent()).toContain("autoloop");

    // The incident's page: acknowledge with a note; the CLI sees it.
    await page.goto(`${url}/`);
    await incident.click();
    await page.getByLabel("Note").first().fill("looking at the missing module");
    await page.getByRole("button", { name: "Acknowledge" }).click();
    await page.getByRole("status").filter({ hasText: "acknowledged" }).waitFor();
    await expect.poll(() => page.locator("main dl").textContent()).toContain("acknowledged");
    await expect
      .poll(() => page.locator("main .incident-body").textContent())
      .toContain("looking at the missing module");
    // Rendered, not the file's raw Markdown.
    expect(await page.locator("main .incident-body").innerHTML()).not.toContain("LIFO");
    await shot(page, "status-incident");
    const listed = JSON.parse((await cron("incident", "list", "--json")).stdout);
    expect(listed.some((i: { status: string }) => i.status === "acknowledged")).toBe(true);
    await page.close();
  }, 120_000);

  it("answers a run's question from its page, and the run completes", async () => {
    const fired = await cron("fire", "asker");
    const id = /asker-\S+/.exec(`${fired.stdout}\n${fired.stderr}`)?.[0];
    expect(id, `${fired.stdout}${fired.stderr}`).toBeDefined();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await expect
      .poll(
        async () => {
          await page.goto(`${url}/runs/${id}`);
          return page.locator("#question").count();
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(1);
    await expect
      .poll(() => page.locator("main blockquote").textContent())
      .toBe("May I ship the release? Answer yes to sign off.");
    await page.getByLabel("Your answer").fill("yes, ship it");
    await page.getByRole("button", { name: "Send the answer" }).click();
    await page.getByRole("status").filter({ hasText: "answered" }).waitFor();
    await shot(page, "status-answer");
    await expect
      .poll(
        async () => {
          await page.goto(`${url}/runs/${id}`);
          return page.locator("main dl").textContent();
        },
        { timeout: 30_000, interval: 250 },
      )
      .toContain("completed");
    const journal = readFileSync(join(root, "work", ".autoloop", "journal.jsonl"), "utf8");
    expect(journal).toMatch(/"topic": "ask.answered".*"answered_by": "status page"/);
    await page.close();
  }, 90_000);

  it("reads and works without JavaScript, and every field has a label", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${url}/`);
    await expect.poll(() => page.locator("#live").textContent()).toBe("Live updates off");
    await expect.poll(() => page.locator("#s-report").textContent()).toContain("0 0 1 1 *");
    const unlabelled = await page.$$eval(
      "input:not([type=hidden])",
      (inputs) =>
        inputs.filter((i) => !(i.id && document.querySelector(`label[for="${i.id}"]`))).length,
    );
    expect(unlabelled).toBe(0);
    await page.locator("#s-exit-seven").getByRole("button", { name: "Pause" }).click();
    await page.getByRole("status").filter({ hasText: "exit-seven paused" }).waitFor();
    await expect.poll(() => page.locator("#s-exit-seven .state").textContent()).toBe("paused");
    await page.locator("#s-exit-seven").getByRole("button", { name: "Resume" }).click();
    await page.getByRole("status").filter({ hasText: "exit-seven resumed" }).waitFor();
    await context.close();
  }, 60_000);
});

describe("the status page's buttons over HTTP", () => {
  it("fires and stops a run, and resolves an incident, as the CLI would", async () => {
    const token = await pageToken();
    const json = { accept: "application/json" };
    const fired = (await (await post("/schedules/sleeper/fire", { token }, json)).json()) as {
      ok: boolean;
      runId: string;
    };
    expect(fired).toMatchObject({ ok: true, runId: expect.stringMatching(/^sleeper-/) });
    const runs = async () =>
      JSON.parse((await cron("runs", "--schedule", "sleeper", "--json")).stdout) as {
        runId: string;
        status: string;
        killedBy?: string;
      }[];
    await waitFor(
      async () => (await runs()).some((r) => r.runId === fired.runId && r.status === "running"),
      "the sleeper running",
      30_000,
      100,
    );
    const stopped = await post(`/runs/${fired.runId}/stop`, { token, note: "from the page" }, json);
    expect(await stopped.json()).toEqual({
      ok: true,
      runId: fired.runId,
      message: `stopping ${fired.runId}`,
    });
    const killed = await waitFor(
      async () => (await runs()).find((r) => r.runId === fired.runId && r.status === "killed"),
      "the sleeper killed",
      30_000,
      100,
    );
    expect(killed.killedBy).toBe("operator");

    const slug = await waitFor(
      async () => /href="\/incidents\/([\w.-]+)"/.exec(await (await fetch(`${url}/`)).text())?.[1],
      "an incident on the page",
      30_000,
      200,
    );
    const resolved = await post(
      `/incidents/${slug}/resolve`,
      { token, note: "fixed the import" },
      json,
    );
    expect(await resolved.json()).toMatchObject({
      ok: true,
      message: expect.stringContaining(`resolved ${slug}`),
    });
    const incident = JSON.parse((await cron("incident", "show", slug, "--json")).stdout);
    expect(incident.status).toBe("resolved");
    expect(incident.body).toContain("fixed the import");
  }, 90_000);
});
