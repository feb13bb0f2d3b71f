// A schedule's alerts name its pull request: a later failure the one an earlier run delivered,
// the resolved notice the one the completing run delivered; read from the daemon's ledger and
// posted to a real webhook receiver.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { renderText } from "../../src/monitor/alerts/render.js";
import { MonitorService } from "../../src/monitor/service.js";
import { loadConfig } from "../../src/scheduler/config/config.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { webhookReceiver } from "../helpers/webhook-receiver.js";

const T0 = Date.parse("2026-04-07T12:00:00.000Z");
const HOUR = 3_600_000;
const silent = pino({ level: "silent" });
const PR1 = "https://github.example/octo/app/pull/1";
const PR2 = "https://github.example/octo/app/pull/2";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  cleanupTempDirs();
});

function world(hookUrl: string, extra = "") {
  const root = tempDir("autoloop-alert-pr-");
  const config = `state_dir = "state"\nschedules_dir = "schedules"\n[[channel]]\nname = "hook"\ntype = "webhook"\nurl = "${hookUrl}/alerts"\n`;
  writeFileSync(join(root, "autoloop-cron.toml"), config);
  mkdirSync(join(root, "schedules"));
  writeFileSync(
    join(root, "schedules", "nightly.toml"),
    `[[schedule]]\nname = "nightly"\ncron = "0 * * * *"\nkind = "command"\ncommand = ["true"]\nproject_dir = "../project"\nalert = ["hook"]\ndeliver = { pull_request = { forge = "github", token_env = "GH_TOKEN" } }\n${extra}`,
  );
  const state = join(root, "state");
  // A monitor that was already watching (a first look would only list what ended before it).
  mkdirSync(join(state, "monitor"), { recursive: true });
  writeFileSync(join(state, "monitor", "alerts.json"), '{"version": 1, "alerts": []}\n');
  writeFileSync(join(state, "monitor", "watching-since"), `${new Date(T0 - HOUR).toISOString()}\n`);
  return { state, config: loadConfig(join(root, "autoloop-cron.toml")) };
}

/** A run of "nightly" at T0 + `hours` that ended `status`, with the pull request it delivered. */
function endedRun(state: string, hours: number, status: "completed" | "timed_out", pr?: string) {
  const now = () => new Date(T0 + hours * HOUR + 60_000);
  const ledger = RunLedger.open(state, { logger: silent, now });
  const runId = `nightly-20260407T${12 + hours}00-ab12c`;
  const slot = new Date(T0 + hours * HOUR);
  const planned = { runId, schedule: "nightly", slot, trigger: "cron" as const };
  ledger.schedule({ ...planned, kind: "command", argv: ["true"], cwd: state });
  ledger.started(runId, { pid: 1, outputPath: "out.log", journalPath: "", journalOffset: 0 });
  if (status === "timed_out") ledger.killed(runId, "timeout", "ran past its timeout");
  ledger.finished(runId, { status, basis: "exit", durationMs: 5000, journalPath: "" });
  if (pr !== undefined) ledger.delivered(runId, pr, "opened");
  return runId;
}

describe("alerts carry the schedule's pull request", () => {
  it("names the pull request an earlier run delivered on a failure, and the new one on resolve", async () => {
    const { posted, url } = await webhookReceiver(closers);
    const { state, config } = world(url);
    endedRun(state, 0, "completed", PR1);
    const failed = endedRun(state, 1, "timed_out");
    let now = T0 + HOUR + 120_000;
    const monitor = new MonitorService({ config, logger: silent, now: () => new Date(now) });
    closers.push(() => monitor.stop());
    await monitor.runOnce();
    expect(posted.map((p) => p.data)).toMatchObject([
      { kind: "run_timed_out", status: "firing", runId: failed, pullRequest: PR1 },
    ]);
    expect(renderText(posted[0]!.data as never, { now })).toMatch(
      /^Pull request: +https:\/\/github.example\/octo\/app\/pull\/1$/m,
    );

    endedRun(state, 2, "completed", PR2);
    now = T0 + 2 * HOUR + 120_000;
    await monitor.runOnce();
    expect(posted.map((p) => `${p.data.status} ${p.data.pullRequest}`)).toEqual([
      `firing ${PR1}`,
      `resolved ${PR2}`,
    ]);
  });

  it("names none a failed run did not deliver when the schedule takes issues: each has its own", async () => {
    const { posted, url } = await webhookReceiver(closers);
    const source = 'source = { github_issues = { repo = "octo/app", token_env = "GH_TOKEN" } }\n';
    const { state, config } = world(url, source);
    endedRun(state, 0, "completed", PR1);
    const failed = endedRun(state, 1, "timed_out");
    const now = T0 + HOUR + 120_000;
    const monitor = new MonitorService({ config, logger: silent, now: () => new Date(now) });
    closers.push(() => monitor.stop());
    await monitor.runOnce();
    expect(posted.map((p) => p.data)).toMatchObject([
      { kind: "run_timed_out", status: "firing", runId: failed },
    ]);
    expect(posted[0]!.data.pullRequest).toBeUndefined();
  });
});
