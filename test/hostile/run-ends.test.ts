// What a run writes about its own end (its agent's words, its journal) must not stop the
// daemon from recording that end, nor the next daemon from starting: a retry-after of 10^20
// seconds, a FIFO in the journal's place. Real daemons in their own processes, a real harness.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { isTerminal } from "../../src/scheduler/ledger/events.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { newScheduledRunId } from "../../src/scheduler/ledger/scheduled-run-id.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { silentLogger } from "../helpers/daemon.js";
import { waitFor } from "../helpers/wait.js";
import { startDaemonProcess } from "./daemon-process.js";

afterEach(cleanupTempDirs);

/** A schedule of the demo preset whose agent is `agent` (a node script), retrying rate limits. */
function agentSchedule(name: string, agent: string): string {
  return `[[schedule]]\nname = "${name}"\ncron = "0 3 1 1 *"\npreset = "demo"\nobjective = "x"\nproject_dir = "../work"\nisolation = "shared"\nset = { "backend.args" = [${JSON.stringify(agent)}] }\nretry = { attempts = 2, delay = "10m" }\n`;
}

const cron = (root: string, args: string[]) =>
  execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", join(root, "autoloop-cron.toml")], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
  });

const ledger = (root: string) => RunLedger.open(join(root, "state"), { logger: silentLogger });
const summary = (root: string, runId: string) => ledger(root).summary(runId);
/** No run of `schedule` in pending.json (rewritten after the daemon's turn that ended it). */
const unlisted = (root: string, schedule: string) =>
  ledger(root)
    .pending()
    .every((e) => e.schedule !== schedule);

/** Agent code that swaps its run's journal for a FIFO (run in the project dir). */
const SWAP_FOR_FIFO = `import { execFileSync } from "node:child_process";\nimport { rmSync } from "node:fs";\nrmSync(".autoloop/journal.jsonl", { force: true });\nexecFileSync("mkfifo", [".autoloop/journal.jsonl"]);\n`;

/** Fires `schedule` through the running daemon; resolves with the run's summary once it ended. */
async function fireAndEnd(root: string, schedule: string) {
  const fired = await cron(root, ["fire", schedule]);
  expect(fired.exitCode, fired.stderr).toBe(0);
  const runId = fired.stdout.trim();
  return waitFor(
    () => {
      const s = summary(root, runId);
      return s !== undefined && isTerminal(s.status) && s;
    },
    `the ledger to record the end of ${runId}`,
    30_000,
    100,
  );
}

describe("a run's own words about its end", () => {
  it("a retry-after of 10^20 seconds: the end is recorded, the wait capped, the next start and a fire without a daemon work", async () => {
    const root = tempDir("autoloop-hostile-");
    const agent = join(root, "limited.mjs");
    writeFileSync(
      agent,
      'console.error("Error: 429 Too Many Requests. Please try again in 99999999999999999999 seconds.");\nprocess.exit(1);\n',
    );
    const schedule = agentSchedule("limited", agent);
    const daemon = await startDaemonProcess(root, schedule);
    let ended: Awaited<ReturnType<typeof fireAndEnd>>;
    try {
      ended = await fireAndEnd(root, "limited");
    } finally {
      await daemon.stop();
    }
    expect(ended).toMatchObject({ status: "failed", stopReason: "rate_limited" });
    // A time the agent names is bounded where it is read: never past the year 2200.
    expect(ended.retryAfter === undefined || Date.parse(ended.retryAfter) < Date.UTC(2200, 0)).toBe(
      true,
    );

    const again = await startDaemonProcess(root, schedule);
    expect((await again.get("/healthz")).status).toBe(200);
    await again.stop();
    expect(again.log()).not.toMatch(/RangeError/);

    const direct = await cron(root, ["fire", "limited"]);
    expect(direct.stderr).not.toMatch(/RangeError/);
    expect(direct.stderr).toMatch(/failed \(rate_limited\)/);
    expect(direct.exitCode, direct.stderr).toBe(3); // rate_limited: a stop, not a crash
  }, 120_000);

  it("a FIFO in its journal's place: the run's end is recorded, the next start comes up", async () => {
    const root = tempDir("autoloop-hostile-");
    const agent = join(root, "fifo.mjs");
    writeFileSync(agent, `${SWAP_FOR_FIFO}process.exit(1);\n`);
    const schedule = agentSchedule("fifo", agent);
    const daemon = await startDaemonProcess(root, schedule);
    try {
      const ended = await fireAndEnd(root, "fifo");
      expect(ended.status).toBe("failed");
      await waitFor(() => unlisted(root, "fifo"), "pending.json without the run");
      await waitFor(
        () => /journal\.jsonl is not a regular file/.test(daemon.log()),
        "the refusal logged",
      );
    } finally {
      await daemon.stop();
    }
    const again = await startDaemonProcess(root, schedule);
    expect((await again.get("/healthz")).status).toBe(200);
    await again.stop();
  }, 120_000);

  it("a FIFO in the journal of a run a restarted daemon adopts: the watcher's timer reports it, the daemon lives", async () => {
    const root = tempDir("autoloop-hostile-");
    const agent = join(root, "fifo-wait.mjs");
    // The agent swaps its journal for a FIFO, then waits for the test's word and fails.
    writeFileSync(
      agent,
      `${SWAP_FOR_FIFO}import { existsSync } from "node:fs";\nsetInterval(() => existsSync(${JSON.stringify(join(root, "go"))}) && process.exit(1), 50);\n`,
    );
    const schedule = agentSchedule("fifo", agent);
    const first = await startDaemonProcess(root, schedule);
    const fired = await cron(root, ["fire", "fifo"]);
    const runId = fired.stdout.trim();
    const fifo = join(root, "work", ".autoloop", "journal.jsonl");
    await waitFor(
      () => existsSync(fifo) && !statSync(fifo).isFile(),
      "the FIFO in the journal's place",
    );
    first.child.kill("SIGKILL");
    await first.child;

    const second = await startDaemonProcess(root, schedule);
    try {
      await waitFor(() => /adopted a run/.test(second.log()), "the run adopted");
      writeFileSync(join(root, "go"), "");
      await waitFor(
        () => isTerminal(ledger(root).summary(runId)?.status ?? "running"),
        "the adopted run's end in the ledger",
        30_000,
        100,
      );
      expect((await second.get("/healthz")).status).toBe(200);
      await waitFor(() => unlisted(root, "fifo"), "pending.json without the run");
      expect(second.log()).toMatch(/journal\.jsonl is not a regular file/);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it("a corrupted pending entry and a corrupted ledger line: each reported by run id and ended, the daemon starts", async () => {
    const root = tempDir("autoloop-hostile-");
    const work = join(root, "work");
    mkdirSync(join(work, ".autoloop"), { recursive: true });
    writeFileSync(join(work, ".autoloop", "journal.jsonl"), "{}\n");
    const state = join(root, "state");
    const before = RunLedger.open(state, { logger: silentLogger });
    let hoursAgo = 0;
    const planned = () => {
      const slot = new Date(Date.now() - ++hoursAgo * 3_600_000);
      const runId = newScheduledRunId("nightly", slot);
      const run = { runId, schedule: "nightly", slot, trigger: "cron" as const };
      before.schedule({ ...run, kind: "preset", argv: ["autoloop"], cwd: work });
      return runId;
    };
    const badCwd = planned();
    const badOffset = planned();
    const start = { pid: 2 ** 22 + 1, outputPath: join(state, "o.log"), journalPath: "j" };
    before.started(badOffset, { ...start, journalOffset: -5 });
    const good = planned();
    // pending.json as a run that reached the state dir would leave it: a cwd that is no path.
    const pendingPath = join(state, "pending.json");
    const entries = JSON.parse(readFileSync(pendingPath, "utf8")) as Array<{ runId: string }>;
    const corrupted = entries.map((e) => (e.runId === badCwd ? { ...e, cwd: 42 } : e));
    writeFileSync(pendingPath, JSON.stringify(corrupted));

    const daemon = await startDaemonProcess(root, "");
    try {
      expect((await daemon.get("/healthz")).status).toBe(200);
      const ended = (runId: string) => ledger(root).summary(runId)?.status === "interrupted";
      await waitFor(
        () => [badCwd, badOffset, good].every(ended),
        "the three runs ended",
        20_000,
        100,
      );
      // pending.json is rewritten after the turn that ended them.
      const listed = () =>
        ledger(root)
          .pending()
          .filter((e) => e.schedule === "nightly");
      await waitFor(() => listed().length === 0, "pending.json without them");
      await waitFor(() => daemon.log().includes(badOffset), "the reports in the log");
      const lines = daemon.log().split("\n");
      expect(lines.find((l) => l.includes(badCwd))).toMatch(/not recovered.*path/);
      expect(lines.find((l) => l.includes(badOffset))).toMatch(/journal was not read/);
    } finally {
      await daemon.stop();
    }
  }, 60_000);
});
