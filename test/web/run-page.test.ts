/// <reference lib="dom" />
// A run's page as iterations, against the real daemon and a real eight-iteration run of a
// scripted `command` agent: each iteration's role, events, the gate's verdict, its question
// and answer, its answer text (long output folded and capped), tokens and cost, the tasks
// after it; the raw journal one click away and as a download. Read in headless Chromium
// without JavaScript, and with it across a live update. SCREENSHOTS_DIR=dir saves
// status-run.png.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { chromium } from "playwright-core";
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

// Builder and reviewer take turns; the builder asks a human in iteration 5 (asking does not
// route, so it builds again in 6) and completes in 8. Iteration 3 prints far more than a page
// shows; the reviewer's first completion (2) is refused with both tasks open. The tasks file
// records whole seconds, as a real agent's minutes-long turns make plain: a task closed
// waits for the next second, so that it cannot look closed by the iteration before.
const AGENT = `import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
const env = process.env;
const prompt = readFileSync(0, "utf8");
const i = Number(env.AUTOLOOP_ITERATION);
const role = (env.AUTOLOOP_ALLOWED_ROLES ?? "").split(",")[0];
const tool = (...args) => {
  const r = spawnSync(env.AUTOLOOP_BIN, args, { encoding: "utf8" });
  console.log("$ autoloops " + args.join(" ") + "\\n" + r.stdout + r.stderr);
};
writeFileSync(env.AUTOLOOP_USAGE_FILE, JSON.stringify({
  model: "story-1", input_tokens: 1000 + 100 * i, output_tokens: 200, cost_usd: 0.0025 * i,
}));
const nextSecond = () => {
  const ms = 1000 - (Date.now() % 1000) + 5;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};
const answer = /Human response to "[^\\n]*?": (.*)/.exec(prompt)?.[1];
console.log("iteration " + i + " as " + role);
if (role === "reviewer") {
  if (i === 2) tool("emit", "task.complete", "looks done to me");
  tool("emit", "review.rejected", i === 2 ? "the numbers are unchecked" : "the summary is too long");
} else if (i === 1) {
  tool("task", "add", "--priority", "high", "write the report");
  tool("task", "add", "check the numbers");
  tool("emit", "build.done", "drafted the report");
} else if (i === 3) {
  nextSecond();
  tool("task", "complete", "task-1");
  for (let n = 1; n <= 400; n++) console.log("checked row " + n + ": " + "ok ".repeat(18));
  tool("emit", "build.done", "report written, rows checked");
} else if (i === 5) tool("emit", "human.ask", "Which quarter should the numbers cover?");
else if (i === 8) {
  nextSecond();
  tool("task", "complete", "task-2");
  tool("emit", "task.complete", "report and numbers done");
} else tool("emit", "build.done", answer ? "numbers for " + answer : "shorter summary");
`;

const PRESET = {
  "autoloops.toml": `[event_loop]
max_iterations = 12
completion_event = "task.complete"
completion_promise = "LOOP_COMPLETE"
stall_iterations = 0
ask_timeout = "10m"

[backend]
kind = "command"
command = ${JSON.stringify(process.execPath)}
args = ["{{PRESET_DIR}}/agent.mjs"]
prompt_mode = "stdin"
timeout_ms = 30000
`,
  "topology.toml": `[[role]]
id = "builder"
emits = ["build.done", "task.complete"]
prompt_file = "roles/builder.md"

[[role]]
id = "reviewer"
emits = ["review.rejected", "task.complete"]
prompt_file = "roles/reviewer.md"

[handoff]
"loop.start" = ["builder"]
"build.done" = ["reviewer"]
"review.rejected" = ["builder"]
`,
  "harness.md": "Write the quarterly report.\n",
  "roles/builder.md": "You are the builder.\n",
  "roles/reviewer.md": "You are the reviewer.\n",
  "agent.mjs": AGENT,
};

let root: string;
let config: string;
let url: string;
let daemon: ResultPromise;
let runId: string;

const cron = (...args: string[]) =>
  execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
  });

beforeAll(async () => {
  root = tempDir("autoloop-runpage-");
  for (const dir of ["schedules", "work", "presets/story/roles"])
    mkdirSync(join(root, dir), { recursive: true });
  for (const [file, text] of Object.entries(PRESET))
    writeFileSync(join(root, "presets/story", file), text);
  config = join(root, "autoloop-cron.toml");
  writeFileSync(
    config,
    'state_dir = "state"\npresets_dir = "presets"\n[http]\nlisten = "127.0.0.1:0"\n[defaults]\ncatch_up = "none"\n',
  );
  writeFileSync(
    join(root, "schedules", "story.toml"),
    '[[schedule]]\nname = "story"\ncron = "0 0 1 1 *"\npreset = "story"\nobjective = "Write the quarterly report"\nproject_dir = "../work"\n',
  );
  ({ daemon, url } = await startDaemonProcess(config));
  const fired = await cron("fire", "story");
  runId = /story-\S+/.exec(`${fired.stdout}\n${fired.stderr}`)![0];
  const page = () => fetch(`${url}/runs/${runId}`).then((r) => r.text());
  await waitFor(async () => (await page()).includes('id="question"'), "the question", 30_000, 100);
  const answered = await cron("answer", runId, "the third quarter");
  expect(answered.exitCode, answered.stderr).toBe(0);
  await waitFor(
    async () => (await page()).includes('<span class="status-completed">completed</span>'),
    "the run completed",
    30_000,
    100,
  );
}, 90_000);

afterAll(async () => {
  daemon?.kill("SIGTERM");
  await daemon;
  cleanupTempDirs();
});

describe("a run's page over HTTP", () => {
  it("serves the run's own records as a JSON-lines download, behind the page's guard", async () => {
    const res = await fetch(`${url}/runs/${runId}/journal.jsonl`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${runId}.jsonl"`);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const records = (await res.text())
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as { run: string; topic: string });
    expect(new Set(records.map((r) => r.run))).toEqual(new Set([runId]));
    expect(records.filter((r) => r.topic === "iteration.start")).toHaveLength(8);
    expect(records.at(-1)!.topic).toBe("loop.complete");
    // Another run id of the schedule: its last character changed.
    const other = `${runId.slice(0, -1)}${runId.endsWith("0") ? "1" : "0"}`;
    expect((await fetch(`${url}/runs/${other}/journal.jsonl`)).status).toBe(404);
    expect((await fetch(`${url}/runs/..%2F..%2Fetc/journal.jsonl`)).status).toBe(404);
    const rebound = await statusWithForeignHost(`${url}/runs/${runId}/journal.jsonl`);
    expect(rebound).toBe(421);
    const raw = await (await fetch(`${url}/runs/${runId}?raw=1`)).text();
    expect(raw).toContain("<h2>Journal</h2>");
    expect(raw).not.toContain('class="iteration"');
  });
});

describe.skipIf(!existsSync(CHROMIUM))("a run's page in Chromium", () => {
  it("shows the run as its iterations, without JavaScript, and keeps them live", async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    try {
      const context = await browser.newContext({
        javaScriptEnabled: false,
        viewport: { width: 1280, height: 900 },
      });
      const page = await context.newPage();
      await page.goto(`${url}/runs/${runId}`);
      const cards = page.locator("section.iteration");
      expect(await cards.count()).toBe(8);
      const roles = await cards.locator("h3 .role").allTextContents();
      expect(roles).toEqual([
        "builder",
        "reviewer",
        "builder",
        "reviewer",
        "builder",
        "builder",
        "reviewer",
        "builder",
      ]);
      const card = (n: number) => page.locator(`#i-${n}`);
      // Role, events, usage and the tasks after it.
      expect(await card(1).locator(".events li").allTextContents()).toEqual([
        "build.done drafted the report",
      ]);
      expect(await card(1).locator(".facts").textContent()).toMatch(
        /after loop\.start · \d+\.\d s · 1,300 tokens · \$0\.0025 · story-1/,
      );
      // The gate's verdict: the reviewer's completion refused with both tasks open.
      expect(await card(2).locator(".verdict .refused").textContent()).toBe(
        "Gate refused task.complete: 2 tasks open (task-1, task-2)",
      );
      // A long answer: its first lines, the rest folded, the far end cut with a raw link.
      const answer = card(3).locator("pre.answer").first();
      expect((await answer.textContent())!.split("\n")).toHaveLength(8);
      expect(await card(3).locator("details:not(.tasks) summary").textContent()).toMatch(
        /^\d+ more lines$/,
      );
      expect(await card(3).locator("details:not(.tasks) pre").isVisible()).toBe(false);
      const cut = card(3).getByText(/^Truncated: [\d,]+ more bytes/);
      expect(await cut.locator("a").getAttribute("href")).toBe(`/runs/${runId}?raw=1`);
      // The question and its answer, and what the builder did with it.
      expect(await card(5).locator(".question").textContent()).toMatch(
        /^Asked: Which quarter should the numbers cover\?Answer from cli:.+: the third quarter$/,
      );
      expect(await card(6).locator(".events li").allTextContents()).toEqual([
        "build.done numbers for the third quarter",
      ]);
      expect(await card(7).locator(".verdict").count()).toBe(0);
      expect(await card(8).locator(".verdict").textContent()).toBe(
        "The run completed (completion_event)",
      );
      // The tasks as they stood after each iteration.
      expect(await cards.locator(".tasks summary").allTextContents()).toEqual([
        "Tasks after it: 2 open, 0 done — task-1 added, task-2 added",
        "Tasks after it: 2 open, 0 done",
        "Tasks after it: 1 open, 1 done — task-1 done",
        ...Array(4).fill("Tasks after it: 1 open, 1 done"),
        "Tasks after it: 0 open, 2 done — task-2 done",
      ]);
      // Prompts are not on the page; the raw journal is one click away.
      expect(await page.locator("main").textContent()).not.toContain("You are the builder");
      await page
        .getByRole("navigation", { name: "Views of the run" })
        .getByRole("link", { name: "Raw journal" })
        .click();
      expect(await page.locator("main table").first().textContent()).toContain("iteration.start");
      expect(await page.locator("section.iteration").count()).toBe(0);
      await context.close();

      // With JavaScript: a live update keeps what the reader unfolded.
      const live = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await live.goto(`${url}/runs/${runId}`);
      await expect.poll(() => live.locator("#live").textContent()).toBe("Live");
      const shots = process.env.SCREENSHOTS_DIR;
      if (shots !== undefined)
        await live.screenshot({ path: join(shots, "status-run.png"), fullPage: true });
      await live.locator("#i-3-more summary").click();
      await live.locator("#i-1-tasks summary").click();
      const token = /name="token" value="([^"]+)"/.exec(await (await fetch(`${url}/`)).text())![1]!;
      const paused = await fetch(`${url}/schedules/story/pause`, {
        method: "POST",
        headers: { accept: "application/json" },
        body: new URLSearchParams({ token }),
      });
      expect(paused.status).toBe(200);
      await expect.poll(() => live.locator("html").getAttribute("data-updates")).toBe("1");
      expect(await live.locator("#i-3-more").getAttribute("open")).toBe("");
      expect(await live.locator("#i-1-tasks").getAttribute("open")).toBe("");
      expect(await live.locator("#i-2-tasks").getAttribute("open")).toBeNull();
    } finally {
      await browser.close();
    }
  }, 60_000);
});
