// Retries across daemon crashes: a slot's failed run is retried as a new run of the same slot
// (its attempt under a key of its own, its parent the first run), and a kill -9 of the daemon
// in the delay or while an attempt runs neither loses an attempt nor starts one twice.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { readJournal } from "../../src/journal/reader.js";
import type { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { nextEvent, silentLogger, startDaemon, writeCronConfig } from "../helpers/daemon.js";
import { waitFor } from "../helpers/wait.js";

const daemons: SchedulerDaemon[] = [];
const children: ResultPromise[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  await Promise.all(daemons.splice(0).map((d) => d.shutdown("terminate", 5_000)));
  cleanupTempDirs();
});

// Attempts 1 and 2 fail (the second after 4 s, long enough to kill its daemon), the third
// completes; each notes its attempt and run id in the project dir.
const SCRIPT = [
  "const n = Number(process.env.AUTOLOOP_CRON_ATTEMPT);",
  "require('fs').appendFileSync('attempts.log', n + ' ' + process.env.AUTOLOOP_CRON_RUN_ID + '\\n');",
  "setTimeout(() => process.exit(n < 3 ? 1 : 0), n === 2 ? 4000 : 200);",
].join(" ");

const SCHEDULE = `[[schedule]]
name = "flaky"
cron = "0 0 1 1 *"
kind = "command"
command = [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(SCRIPT)}]
project_dir = "../work"
retry = { attempts = 3, delay = "3s", on = ["failed"] }
`;

/** `autoloop-cron start` as a child, once it runs (in an object: the child is a thenable). */
async function startChild(configFile: string, stateDir: string): Promise<{ child: ResultPromise }> {
  const child = execa(process.execPath, [AUTOLOOP_CRON, "start", "--config", configFile], {
    env: cleanEnv(),
    reject: false,
  });
  children.push(child);
  await waitFor(() => {
    try {
      return JSON.parse(readFileSync(join(stateDir, "daemon.json"), "utf8")).pid === child.pid;
    } catch {
      return false;
    }
  }, "the daemon to start");
  return { child };
}

describe("retry", () => {
  it("retries a failed slot across two kill -9s of the daemon: every attempt once, in order", async () => {
    const root = tempDir("autoloop-retries-");
    const config = writeCronConfig(root, SCHEDULE);
    const file = join(root, "autoloop-cron.toml");
    const ledger = () => RunLedger.open(config.stateDir, { logger: silentLogger });
    const attempts = () => ledger().listRuns({ schedule: "flaky" }).reverse();

    // Daemon A launches attempt 1 and dies in the delay before attempt 2.
    const { child: a } = await startChild(file, config.stateDir);
    const fire = await execa(process.execPath, [AUTOLOOP_CRON, "fire", "flaky", "--config", file], {
      env: cleanEnv(),
    });
    const first = fire.stdout.trim();
    await waitFor(
      () => ledger().summary(first)?.status === "failed",
      "attempt 1 to fail",
      15_000,
      25,
    );
    a.kill("SIGKILL");
    await a;
    expect(attempts()).toHaveLength(1);

    // Daemon B owes attempt 2, starts it, and dies while it runs.
    const { child: b } = await startChild(file, config.stateDir);
    const second = await waitFor(
      () => attempts().find((r) => r.attempt === 2 && r.status === "running"),
      "attempt 2 to start",
      15_000,
      25,
    ).catch((err) => {
      throw new Error(`${err.message}: ${JSON.stringify(attempts(), null, 1)}`);
    });
    b.kill("SIGKILL");
    await b;

    // Daemon C adopts attempt 2, sees it fail, and starts attempt 3, which completes.
    const c = await startDaemon(config);
    daemons.push(c);
    const third = await waitFor(
      () => attempts().find((r) => r.attempt === 3 && r.status === "completed"),
      "attempt 3 to complete",
      30_000,
      50,
    ).catch((err) => {
      throw new Error(`${err.message}: ${JSON.stringify(attempts(), null, 1)}`);
    });

    const runs = attempts();
    expect(runs.map((r) => [r.runId, r.attempt, r.parentRunId, r.status])).toEqual([
      [first, undefined, undefined, "failed"],
      [second.runId, 2, first, "failed"],
      [third.runId, 3, first, "completed"],
    ]);
    expect(new Set(runs.map((r) => r.slot)).size).toBe(1);
    expect(
      ledger()
        .replay(second.runId)
        ?.events.map((e) => e.event),
    ).toEqual(["scheduled", "started", "adopted", "finished"]);
    // Each attempt ran once, under a key of its own.
    const ran = readFileSync(join(root, "work", "attempts.log"), "utf8")
      .trim()
      .split("\n");
    expect(ran).toEqual([`1 ${first}`, `2 ${second.runId}`, `3 ${third.runId}`]);
    const keys = readFileSync(join(config.stateDir, "slots.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).key as string);
    const slot = `flaky@${runs[0]!.slot}`;
    expect(keys).toEqual([slot, `${slot}#2`, `${slot}#3`]);
    // After the last attempt nothing more is owed.
    expect(c.retries.list()).toEqual([]);
  }, 90_000);
});

// An agent that is rate-limited once, naming when to try again, and completes the next time.
const LIMITED_AGENT = `import { existsSync, writeFileSync } from "node:fs";
if (!existsSync("limited-once")) {
  writeFileSync("limited-once", "");
  console.error("Error: 429 Too Many Requests: rate limit exceeded. Try again in 3s.");
  process.exit(1);
}
console.log("LOOP_COMPLETE");
`;

describe("retry of a rate-limited run", () => {
  it("starts the next attempt when the agent said, not after the delay, and tells the harness its parent", async () => {
    const root = tempDir("autoloop-retry-limited-");
    const agent = join(root, "limited-agent.mjs");
    writeFileSync(agent, LIMITED_AGENT);
    const config = writeCronConfig(
      root,
      `[[schedule]]
name = "limited"
cron = "0 0 1 1 *"
preset = "demo"
objective = "Tidy the changelog"
project_dir = "../work"
isolation = "shared"
set = { "backend.args" = [${JSON.stringify(agent)}] }
retry = { attempts = 2, delay = "10m" }
`,
    );
    const d = await startDaemon(config);
    daemons.push(d);
    const fired = await d.control({ action: "fire", schedule: "limited" });
    if (!fired.ok) throw new Error(fired.error);
    const first = fired.runId!;
    await nextEvent(d, "finished", (e) => e.runId === first, 30_000);
    const done = await nextEvent(d, "finished", (e) => e.runId !== first, 30_000);
    expect(done.outcome.status).toBe("completed");

    const one = d.ledger.summary(first)!;
    const two = d.ledger.summary(done.runId)!;
    expect(one).toMatchObject({ status: "failed", stopReason: "rate_limited" });
    // "Try again in 3s", counted from the harness's loop.stop.
    const stop = readJournal(join(root, "work", ".autoloop", "journal.jsonl"), 0).items.find(
      (r) => r.run === first && r.topic === "loop.stop",
    )!;
    expect(one.retryAfter).toBe(new Date(Date.parse(stop.ts) + 3_000).toISOString());
    expect(two).toMatchObject({ attempt: 2, parentRunId: first, slot: one.slot });
    const startedAt = Date.parse(two.scheduledAt!);
    expect(startedAt).toBeGreaterThanOrEqual(Date.parse(one.retryAfter!));
    expect(startedAt).toBeLessThan(Date.parse(one.finishedAt!) + 600_000);
    // The harness knows the retry's first attempt (its registry and loop.start).
    const start = readJournal(join(root, "work", ".autoloop", "journal.jsonl"), 0).items.find(
      (r) => r.run === done.runId && r.topic === "loop.start",
    );
    expect(start?.shape === "system" && start.fields.parent_run_id).toBe(first);
  }, 60_000);
});
