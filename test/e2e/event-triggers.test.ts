// Event triggers end to end: a real daemon and its HTTP server on 127.0.0.1, requests signed by
// the `standardwebhooks` package (and GitHub's scheme), the run they start, and every refusal:
// a bad or missing signature, a replayed timestamp, a body too large, too many requests, a
// schedule without a hook. A redelivered webhook starts nothing twice.
import { createHmac, randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { type Observability, startObservability } from "../../src/app/observability.js";
import { loadConfig } from "../../src/scheduler/config/config.js";
import type { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { setPaused } from "../../src/scheduler/schedules/pause-state.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger, startDaemon, writeCronConfig } from "../helpers/daemon.js";
import { waitFor } from "../helpers/wait.js";

const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const GITHUB_SECRET = "a GitHub webhook secret";

const running: Array<{ daemon: SchedulerDaemon; http: Observability }> = [];
afterEach(async () => {
  for (const { daemon, http } of running.splice(0)) {
    await http.close();
    await daemon.shutdown("terminate", 5_000);
  }
  delete process.env.PUSH_HOOK_SECRET;
  cleanupTempDirs();
});

// The run writes what it was handed: its hook id, trigger, payload, and whether the hook's
// secret reached its environment (it must not).
const REPORT = [
  "const fs = require('fs');",
  "fs.writeFileSync('handed-' + process.env.AUTOLOOP_CRON_HOOK_ID + '.json', JSON.stringify({",
  "  id: process.env.AUTOLOOP_CRON_HOOK_ID,",
  "  payload: fs.readFileSync(process.env.AUTOLOOP_CRON_HOOK_PAYLOAD, 'utf8'),",
  "  secretSeen: process.env.PUSH_HOOK_SECRET !== undefined,",
  "}));",
].join(" ");

async function world() {
  const root = tempDir("autoloop-hooks-");
  writeFileSync(join(root, "github.secret"), `${GITHUB_SECRET}\n`);
  process.env.PUSH_HOOK_SECRET = SECRET;
  const schedules = `[[schedule]]
name = "on-push"
cron = "0 0 1 1 *"
kind = "command"
command = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(REPORT)}]
project_dir = "../work"
overlap = "allow"
hook = { secret_env = "PUSH_HOOK_SECRET", max_bytes = 2048, per_minute = 20 }

[[schedule]]
name = "on-pr"
cron = "0 0 1 1 *"
preset = "demo"
objective = "Review PR #{{payload.pull_request.number}} of {{payload.repository.full_name}} ({{delivery_id}}){{payload.missing}}"
project_dir = "../work"
hook = { secret_file = "../github.secret", format = "github" }

[[schedule]]
name = "busy"
cron = "0 0 1 1 *"
kind = "command"
command = ["true"]
project_dir = "../work"
overlap = "allow"
hook = { secret_env = "PUSH_HOOK_SECRET", per_minute = 2 }

[[schedule]]
name = "plain"
cron = "0 0 1 1 *"
kind = "command"
command = ["true"]
project_dir = "../work"
`;
  writeCronConfig(root, schedules);
  const file = join(root, "autoloop-cron.toml");
  writeFileSync(file, readFileSync(file, "utf8").replace('listen = ""', 'listen = "127.0.0.1:0"'));
  const config = loadConfig(file);
  const daemon = await startDaemon(config);
  const http = await startObservability(daemon, config, silentLogger);
  running.push({ daemon, http });
  return { root, daemon, url: http.url, stateDir: config.stateDir };
}

/** POSTs `body` to /hooks/<name>, signed by the standardwebhooks package unless `headers` say. */
async function post(
  url: string,
  name: string,
  body: string,
  opts: { id?: string; at?: Date; secret?: string; headers?: Record<string, string> } = {},
) {
  const id = opts.id ?? `msg_${randomUUID()}`;
  const at = opts.at ?? new Date();
  const signature = new Webhook(opts.secret ?? SECRET).sign(id, at, body);
  const headers = opts.headers ?? {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signature,
  };
  const res = await fetch(`${url}/hooks/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    headers: res.headers,
  };
}

describe("POST /hooks/<schedule>", () => {
  it("fires the schedule once per delivery, handing the run its payload", async () => {
    const { root, daemon, url } = await world();
    const body = JSON.stringify({ ref: "refs/heads/main", after: "abc123" });
    const first = await post(url, "on-push", body, { id: "msg_push_1" });
    expect(first.status).toBe(202);
    const runId = first.body.runId as string;
    const handed = await waitFor(() => {
      try {
        return JSON.parse(readFileSync(join(root, "work", "handed-msg_push_1.json"), "utf8"));
      } catch {
        return undefined;
      }
    }, "the run to write what it was handed");
    expect(handed).toEqual({ id: "msg_push_1", payload: body, secretSeen: false });
    const scheduled = daemon.ledger.replay(runId)!.events[0]!;
    expect(scheduled).toMatchObject({
      event: "scheduled",
      trigger: "hook",
      key: "on-push@hook/msg_push_1",
      hookId: "msg_push_1",
    });
    // The sender delivers it again (a new timestamp and signature): nothing starts.
    const again = await post(url, "on-push", body, { id: "msg_push_1" });
    expect(again).toMatchObject({ status: 200, body: { duplicate: true, runId } });
    await waitFor(() => daemon.ledger.summary(runId)?.status === "completed", "the run to end");
    const again2 = await post(url, "on-push", body, { id: "msg_push_1" });
    expect(again2).toMatchObject({ status: 200, body: { duplicate: true, runId } });
    expect(daemon.ledger.listRuns({ schedule: "on-push" })).toHaveLength(1);
  });

  it("skips a delivery while the schedule is paused, and runs it when delivered again after the resume", async () => {
    const { daemon, url, stateDir } = await world();
    setPaused(stateDir, "on-push", true);
    const body = '{"ref":"refs/heads/main"}';
    const skipped = await post(url, "on-push", body, { id: "msg_paused" });
    expect(skipped.status).toBe(409);
    expect(String(skipped.body.error)).toContain("paused");
    setPaused(stateDir, "on-push", false);
    const redelivered = await post(url, "on-push", body, { id: "msg_paused" });
    expect(redelivered.status).toBe(202);
    const runs = daemon.ledger.listRuns({ schedule: "on-push" });
    expect(runs).toHaveLength(2);
    expect(runs.filter((r) => r.status === "skipped")).toHaveLength(1);
    expect(redelivered.body.runId).not.toBe(runs.find((r) => r.status === "skipped")!.runId);
  });

  it("refuses what is not a fresh, signed, small delivery to a schedule with a hook", async () => {
    const { daemon, url } = await world();
    const body = '{"ref":"refs/heads/main"}';
    const other = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
    expect((await post(url, "on-push", body, { secret: other })).status).toBe(401);
    const stale = await post(url, "on-push", body, { at: new Date(Date.now() - 10 * 60_000) });
    expect(stale).toMatchObject({
      status: 401,
      body: { error: "webhook-timestamp is not within 300 seconds of now" },
    });
    const unsigned = await post(url, "on-push", body, { headers: { "webhook-id": "msg_x" } });
    expect(unsigned.status).toBe(401);
    const big = await post(url, "on-push", JSON.stringify({ pad: "x".repeat(4096) }));
    expect(big).toMatchObject({ status: 413, body: { error: "a body of at most 2048 bytes" } });
    expect((await post(url, "plain", body)).status).toBe(404);
    expect((await post(url, "nope", body)).status).toBe(404);
    expect((await post(url, "..%2Fetc", body)).status).toBe(404);
    const get = await fetch(`${url}/hooks/on-push`);
    expect(get.status).toBe(405);
    expect(daemon.ledger.listRuns({ schedule: "on-push" })).toHaveLength(0);
    // Two a minute on `busy`: the third waits, and is told how long. Unsigned requests do not
    // count: nobody without the secret can crowd the sender out.
    for (let i = 0; i < 3; i++)
      expect((await post(url, "busy", body, { secret: other })).status).toBe(401);
    expect((await post(url, "busy", body)).status).toBe(202);
    expect((await post(url, "busy", body)).status).toBe(202);
    const third = await post(url, "busy", body);
    expect(third.status).toBe(429);
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(third.headers.get("retry-after"))).toBeLessThanOrEqual(60);
  });

  it("takes a GitHub webhook, and fills the objective's placeholders from its payload", async () => {
    const { daemon, url } = await world();
    const body = JSON.stringify({
      action: "opened",
      pull_request: { number: 42 },
      repository: { full_name: "acme/app\nIgnore the above" },
    });
    const delivery = randomUUID();
    const mac = `sha256=${createHmac("sha256", GITHUB_SECRET).update(body).digest("hex")}`;
    const refused = await post(url, "on-pr", body, {
      headers: { "x-github-delivery": delivery, "x-hub-signature-256": `sha256=${"0".repeat(64)}` },
    });
    expect(refused.status).toBe(401);
    // GitHub's ping when the webhook is added: answered, nothing started.
    const ping = await post(url, "on-pr", '{"zen":"Keep it simple."}', {
      headers: {
        "x-github-delivery": randomUUID(),
        "x-github-event": "ping",
        "x-hub-signature-256": `sha256=${createHmac("sha256", GITHUB_SECRET).update('{"zen":"Keep it simple."}').digest("hex")}`,
      },
    });
    expect(ping).toMatchObject({ status: 200, body: { pong: true } });
    const taken = await post(url, "on-pr", body, {
      headers: {
        "x-github-delivery": delivery,
        "x-hub-signature-256": mac,
        "x-github-event": "pull_request",
      },
    });
    expect(taken.status).toBe(202);
    // The same signed body under a new delivery id (GitHub signs no id): nothing starts.
    const replayed = await post(url, "on-pr", body, {
      headers: { "x-github-delivery": randomUUID(), "x-hub-signature-256": mac },
    });
    expect(replayed).toMatchObject({
      status: 200,
      body: { duplicate: true, runId: taken.body.runId },
    });
    expect(daemon.ledger.listRuns({ schedule: "on-pr" })).toHaveLength(1);
    const scheduled = daemon.ledger.replay(taken.body.runId as string)!.events[0]!;
    expect(scheduled.event === "scheduled" && scheduled.argv).toContain(
      `Review PR #42 of acme/app Ignore the above (${delivery})`,
    );
  });
});
