// The morning digest end to end: runs in a real ledger, `autoloop-cron monitor --once` sends
// a digest that was due through the outbox to a real SMTP server (HTML and text) and a signed
// webhook, once; `autoloop-cron digest` prints the same report, as text and JSON.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { startReceiver, startSmtpServer } from "../channels/helpers.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { seedRuns } from "../helpers/digest-runs.js";
import { enqueuedMessages } from "../helpers/outbox.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  cleanupTempDirs();
});

const HOUR = 3_600_000;

/** A config with an email and a webhook channel and a digest "morning" at `cron`. */
function setup(cron: string) {
  const root = tempDir("autoloop-digest-");
  mkdirSync(join(root, "schedules"));
  const config = join(root, "autoloop-cron.toml");
  const lines = [
    'state_dir = "state"',
    "[http]",
    'listen = ""',
    "[monitor]",
    `journals = ["${join(root, "journal.jsonl")}"]`,
    "[[channel]]",
    'name = "mail"',
    'type = "email"',
    'smtp_url_env = "DIGEST_SMTP"',
    'from = "cron@example.com"',
    'to = ["team@example.com"]',
    "[[channel]]",
    'name = "hook"',
    'type = "webhook"',
    'url_env = "DIGEST_HOOK"',
    "[[digest]]",
    'name = "morning"',
    `cron = "${cron}"`,
    'channels = ["mail", "hook"]',
    'schedules = ["nightly"]',
    "",
  ];
  writeFileSync(config, lines.join("\n"));
  return { root, config };
}

/** Marks the digest as last sent at `at`. */
function lastSent(root: string, at: number) {
  mkdirSync(join(root, "state", "monitor"), { recursive: true });
  const marks = { morning: new Date(at).toISOString() };
  writeFileSync(join(root, "state", "monitor", "digests.json"), JSON.stringify(marks));
}

describe("the morning digest", () => {
  it("is sent once by the monitor through email and a webhook, and printed by `digest`", async () => {
    const smtp = await startSmtpServer();
    const hook = await startReceiver();
    closers.push(
      () => smtp.close(),
      () => hook.close(),
    );
    const { root, config } = setup("0 7 * * *");
    const now = Date.now();
    const state = join(root, "state");
    const iso = (ms: number) => new Date(ms).toISOString();
    const [completed, failed] = seedRuns(state, [
      { schedule: "nightly", slot: iso(now - 5 * HOUR), status: "completed", costUsd: 1.25 },
      {
        schedule: "nightly",
        slot: iso(now - 4 * HOUR),
        status: "failed",
        stopReason: "agent_error",
      },
      { schedule: "other", slot: iso(now - 3 * HOUR), status: "completed" },
      { schedule: "nightly", slot: iso(now - 30 * HOUR), status: "completed" },
    ]);
    // The completed run published its report (the monitor reads it from the journal).
    const record = (topic: string, fields: object) =>
      JSON.stringify({ run: completed, topic, ts: iso(now - 5 * HOUR + 50_000), v: 1, fields });
    writeFileSync(
      join(root, "journal.jsonl"),
      `${[
        record("loop.start", { preset: "weekly-summary" }),
        record("outputs.published", { files: "WEEKLY-SUMMARY.md", missing: "" }),
        record("loop.complete", { reason: "completed" }),
      ].join("\n")}\n`,
    );
    // Last sent two days ago: a slot passed while nothing ran, so the digest is due now.
    mkdirSync(join(state, "monitor"), { recursive: true });
    writeFileSync(
      join(state, "monitor", "digests.json"),
      JSON.stringify({ morning: iso(now - 48 * HOUR) }),
    );
    const env = cleanEnv({ DIGEST_SMTP: `smtp://127.0.0.1:${smtp.port}`, DIGEST_HOOK: hook.url });
    const cron = (...args: string[]) =>
      execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", config], {
        env,
        extendEnv: false,
        reject: false,
      });

    expect((await cron("monitor", "--once")).exitCode).toBe(0);
    const mail = await smtp.mails.next();
    expect(mail.to).toEqual(["team@example.com"]);
    const headers = mail.raw.replace(/\r?\n[ \t]+/g, " ");
    expect(headers).toMatch(/Subject: \[DIGEST\] morning: 3 runs: 1 failed, 2 completed; \$1\.25/);
    expect(mail.raw).toMatch(/Content-Type: text\/plain/i);
    expect(mail.raw).toMatch(/Content-Type: text\/html/i);
    expect(mail.raw).not.toContain("other"); // only the digest's schedules
    expect(mail.raw.replace(/=\r?\n/g, "")).toContain("report WEEKLY-SUMMARY.md");
    const req = await hook.requests.next();
    const body = JSON.parse(req.body);
    expect(body.type).toBe("digest");
    const schedules = body.data.digest.schedules;
    expect(schedules.map((s: { schedule: string }) => s.schedule)).toEqual(["nightly"]);
    expect(schedules[0].counts).toEqual({ failed: 1, completed: 2 });
    expect(schedules[0].runs[0]).toMatchObject({
      runId: failed,
      status: "failed",
      stopReason: "agent_error",
    });

    // A second pass (a restart) does not send it again.
    expect((await cron("monitor", "--once")).exitCode).toBe(0);
    const digests = enqueuedMessages(state).filter((m) => m.kind === "digest");
    expect(digests).toHaveLength(2); // one message, one entry per channel
    expect(new Set(digests.map((m) => m.fingerprint)).size).toBe(1);

    const json = await cron("digest", "--since", "24h", "--json", "--name", "morning");
    expect(json.exitCode).toBe(0);
    expect(JSON.parse(json.stdout).schedules[0].counts).toEqual({ failed: 1, completed: 1 });
    const text = await cron("digest");
    expect(text.stdout).toContain("3 runs: 1 failed, 2 completed; $1.25");
    expect(text.stdout).toMatch(/^other$/m);
    expect(text.stdout).toContain("report WEEKLY-SUMMARY.md"); // from the tracker's file
    const bad = await cron("digest", "--since", "yesterday");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--since: found "yesterday"; expected a duration such as 24h');
  }, 30_000);

  it("is sent by the running monitor when it starts (a slot passed while down), then at each slot, periods back to back", async () => {
    const hook = await startReceiver();
    const smtp = await startSmtpServer();
    closers.push(
      () => smtp.close(),
      () => hook.close(),
    );
    const { root, config } = setup("*/2 * * * * *"); // every 2 s
    lastSent(root, Date.now() - HOUR);
    const env = cleanEnv({ DIGEST_SMTP: `smtp://127.0.0.1:${smtp.port}`, DIGEST_HOOK: hook.url });
    const monitor = execa(process.execPath, [AUTOLOOP_CRON, "monitor", "--config", config], {
      env,
      extendEnv: false,
      reject: false,
    });
    closers.push(async () => {
      monitor.kill("SIGTERM");
      await monitor;
    });
    const first = JSON.parse((await hook.requests.next()).body).data.digest;
    const second = JSON.parse((await hook.requests.next()).body).data.digest;
    expect(Date.parse(first.until) - Date.parse(first.since)).toBeGreaterThanOrEqual(HOUR);
    expect(second.since).toBe(first.until);
    expect(second.schedules).toEqual([]);
  }, 30_000);
});
