import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { setPaused } from "../../src/scheduler/schedules/pause-state.js";
import { isProcessAlive } from "../../src/util/process.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import {
  capturingLogger,
  commandSchedule,
  nextEvent,
  startDaemon,
  writeCronConfig,
} from "../helpers/daemon.js";
import { waitFor } from "../helpers/wait.js";

const daemons: SchedulerDaemon[] = [];
afterEach(async () => {
  await Promise.all(daemons.splice(0).map((d) => d.shutdown("terminate", 5_000)));
  cleanupTempDirs();
});

async function run(...args: Parameters<typeof startDaemon>): Promise<SchedulerDaemon> {
  const d = await startDaemon(...args);
  daemons.push(d);
  return d;
}

const SLEEP_3S = "setTimeout(() => {}, 3000)";

describe("scheduler daemon with real processes", () => {
  it("skips a slot while the previous run is still running (overlap = skip)", async () => {
    const d = await run(
      writeCronConfig(tempDir(), commandSchedule("slow", SLEEP_3S, 'overlap = "skip"')),
    );
    const first = await nextEvent(d, "fire");
    const skipped = await nextEvent(d, "skipped");
    expect(skipped).toMatchObject({ schedule: "slow", cause: "overlap" });
    expect(skipped.detail).toContain(first.runId);
    expect(d.ledger.replay(skipped.runId)?.summary).toMatchObject({
      status: "skipped",
      skipCause: "overlap",
    });
  });

  it("queues a slot and launches it when the previous run ends (overlap = queue)", async () => {
    const { logger, lines } = capturingLogger();
    const d = await run(
      writeCronConfig(
        tempDir(),
        commandSchedule("q", "setTimeout(() => {}, 1500)", 'overlap = "queue"'),
      ),
      logger,
    );
    const first = await nextEvent(d, "fire");
    const firstFinished = nextEvent(d, "finished", (e) => e.runId === first.runId);
    const queued = await nextEvent(d, "queued");
    const second = await nextEvent(d, "fire", (e) => e.slot.getTime() === queued.slot.getTime());
    const receivedMs = Date.now() - queued.slot.getTime();
    // Lateness counts the wait in the queue: the first run lasted 1.5 s from one second
    // before this slot, so this one started at least ~0.5 s after its time.
    expect(second.latenessMs).toBeGreaterThanOrEqual(400);
    expect(second.latenessMs).toBeLessThanOrEqual(receivedMs);
    const slot = queued.slot.toISOString();
    const queuedLine = lines.find((l) => l.slot === slot && String(l.msg).startsWith("queued"));
    expect(queuedLine).toMatchObject({ schedule: "q", latenessMs: expect.any(Number) });
    expect(queuedLine?.latenessMs).toBeLessThan(second.latenessMs);
    expect(lines.find((l) => l.slot === slot && l.msg === "fired")).toMatchObject({
      runId: second.runId,
      latenessMs: second.latenessMs,
    });
    expect((await firstFinished).outcome.status).toBe("completed");
    expect(second.runId).not.toBe(first.runId);
    expect(d.ledger.replay(first.runId)?.summary.status).toBe("completed");
  });

  it("stops the running run before launching the new one (overlap = replace)", async () => {
    const d = await run(
      writeCronConfig(
        tempDir(),
        commandSchedule("r", "setTimeout(() => {}, 30000)", 'overlap = "replace"'),
      ),
    );
    const first = await nextEvent(d, "fire");
    const ended = await nextEvent(d, "finished", (e) => e.runId === first.runId);
    expect(ended.outcome.status).toBe("killed");
    const next = await nextEvent(d, "fire");
    expect(next.runId).not.toBe(first.runId);
  });

  it("runs slots side by side (overlap = allow)", async () => {
    const d = await run(
      writeCronConfig(tempDir(), commandSchedule("a", SLEEP_3S, 'overlap = "allow"')),
    );
    await nextEvent(d, "fire");
    await nextEvent(d, "fire");
    expect(d.active.size).toBeGreaterThanOrEqual(2);
  });

  it("times a run out and kills its whole process group", async () => {
    const dir = tempDir();
    const pidFile = join(dir, "grandchild.pid");
    const script = `const c = require("child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" }); require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); setInterval(() => {}, 1000);`;
    const d = await run(writeCronConfig(dir, commandSchedule("t", script, 'timeout = "1s"')));
    const fired = await nextEvent(d, "fire");
    const ended = await nextEvent(d, "finished", (e) => e.runId === fired.runId);
    expect(ended.outcome.status).toBe("timed_out");
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    await waitFor(() => !isProcessAlive(grandchild), "the grandchild to die", 5_000);
  });

  it("blocks a schedule whose `after` schedule's latest run did not complete", async () => {
    const dir = tempDir();
    const flag = join(dir, "build-ok");
    const build = commandSchedule(
      "build",
      `process.exit(require("fs").existsSync(${JSON.stringify(flag)}) ? 0 : 1)`,
    ).replace('"* * * * * *"', '"0 0 1 1 *"');
    const d = await run(
      writeCronConfig(dir, build + commandSchedule("deploy", "", 'after = ["build"]')),
    );
    expect(await nextEvent(d, "skipped", (e) => e.schedule === "deploy")).toMatchObject({
      cause: "blocked_by_after",
      detail: "waiting for build: never ran",
    });
    void d.control({ action: "fire", schedule: "build" });
    await nextEvent(d, "finished", (e) => e.schedule === "build");
    expect(await nextEvent(d, "skipped", (e) => e.schedule === "deploy")).toMatchObject({
      detail: "waiting for build: latest run failed",
    });
    writeFileSync(flag, "");
    void d.control({ action: "fire", schedule: "build" });
    await nextEvent(
      d,
      "finished",
      (e) => e.schedule === "build" && e.outcome.status === "completed",
    );
    expect(await nextEvent(d, "fire", (e) => e.schedule === "deploy")).toMatchObject({
      trigger: "cron",
    });
  });

  it("skips paused schedules and resumes them", async () => {
    const config = writeCronConfig(tempDir(), commandSchedule("p", ""));
    setPaused(config.stateDir, "p", true);
    const d = await run(config);
    expect(await nextEvent(d, "skipped")).toMatchObject({ schedule: "p", cause: "paused" });
    setPaused(config.stateDir, "p", false);
    expect(await nextEvent(d, "fire")).toMatchObject({ schedule: "p" });
  });

  it("pauses everything with the AUTOLOOP_CRON_PAUSED kill switch", async () => {
    const config = writeCronConfig(tempDir(), commandSchedule("k", ""));
    const { SchedulerDaemon } = await import("../../src/scheduler/daemon/daemon.js");
    const { silentLogger } = await import("../helpers/daemon.js");
    const d = new SchedulerDaemon(config, {
      logger: silentLogger,
      env: { ...process.env, AUTOLOOP_CRON_PAUSED: "1" },
    });
    daemons.push(d);
    await d.start();
    expect(await nextEvent(d, "skipped")).toMatchObject({ cause: "paused" });
  });

  it("keeps the previous good version of a schedule file that breaks on reload", async () => {
    const dir = tempDir();
    const d = await run(writeCronConfig(dir, commandSchedule("keep", "")));
    expect([...d.schedules.keys()]).toEqual(["keep"]);
    const invalid = nextEvent(d, "invalid");
    writeFileSync(
      join(dir, "schedules", "test.toml"),
      '[[schedule]]\nname = "keep"\ncron = "61 * * * *"\n',
    );
    const event = await invalid;
    expect(event.problems[0]).toMatchObject({
      file: "schedules/test.toml",
      field: "schedule[0].cron",
    });
    expect(event.keptPrevious).toEqual(["schedules/test.toml"]);
    expect([...d.schedules.keys()]).toEqual(["keep"]);
    expect(await nextEvent(d, "fire")).toMatchObject({ schedule: "keep" });
  });

  it("records nothing but a skipped file when one of two files is bad at start", async () => {
    const dir = tempDir();
    const config = writeCronConfig(dir, commandSchedule("good", ""));
    writeFileSync(
      join(dir, "schedules", "bad.toml"),
      '[[schedule]]\nname = "bad"\ncron = "* * * * *"\ntimezone = "Mars/Olympus"\n',
    );
    const d = await run(config);
    expect([...d.schedules.keys()]).toEqual(["good"]);
    expect(d.invalidProblems.map((p) => `${p.file}: ${p.field}`)).toContain(
      "schedules/bad.toml: schedule[0].timezone",
    );
    expect(existsSync(config.stateDir)).toBe(true);
  });
});

describe("waiting slots", () => {
  it("decides a waiting slot again when it could launch: paused meanwhile, it is skipped", async () => {
    const dir = tempDir();
    const config = writeCronConfig(
      dir,
      commandSchedule("w", "setTimeout(() => {}, 1500)", 'overlap = "queue"'),
    );
    const d = await run(config);
    const first = await nextEvent(d, "fire");
    const queued = await nextEvent(d, "queued");
    setPaused(config.stateDir, "w", true);
    // The queued slot itself is decided again when the first run ends, and skipped.
    const skipped = await nextEvent(
      d,
      "skipped",
      (e) => e.slot.getTime() === queued.slot.getTime(),
    );
    expect(skipped).toMatchObject({ schedule: "w", cause: "paused" });
    expect(d.ledger.replay(first.runId)?.summary.status).toBe("completed");
  });
});

describe("a crowded second", () => {
  it("decides every slot of one instant first, in name order, then launches and queues", async () => {
    const { logger, lines } = capturingLogger();
    // Written in reverse: the order of decisions is the names', not the file's.
    const names = Array.from({ length: 12 }, (_, i) => `s${String(11 - i).padStart(2, "0")}`);
    const schedules = names.map((n) => commandSchedule(n, SLEEP_3S)).join("");
    const d = await run({ ...writeCronConfig(tempDir(), schedules), maxConcurrentRuns: 3 }, logger);
    const order: string[] = [];
    d.on("queued", (e) => order.push(`queued ${e.schedule} ${e.slot.getTime()}`));
    d.on("fire", (e) => order.push(`fire ${e.schedule} ${e.slot.getTime()}`));
    const first = await nextEvent(d, "fire");
    const slot = first.slot.getTime();
    await waitFor(
      () => order.filter((o) => o.endsWith(` ${slot}`)).length === 12,
      "all 12 slots of the second launched or queued",
    );
    const ofSlot = order
      .filter((o) => o.endsWith(` ${slot}`))
      .map((o) => o.split(" ", 2).join(" "));
    // The first three by name take the places; nine are queued in the pass that decided them,
    // and the three launches spawn after it.
    const sorted = [...names].sort();
    expect(ofSlot).toEqual([
      ...sorted.slice(3).map((n) => `queued ${n}`),
      ...sorted.slice(0, 3).map((n) => `fire ${n}`),
    ]);
    const iso = new Date(slot).toISOString();
    const queuedLines = lines.filter(
      (l) => l.slot === iso && String(l.msg).includes("max_concurrent_runs = 3"),
    );
    expect(queuedLines.map((l) => l.schedule)).toEqual(sorted.slice(3));
    for (const line of queuedLines) expect(line.latenessMs).toBeGreaterThanOrEqual(0);
  });
});

describe("a launch on its way when the daemon stops", () => {
  it("records the claimed run interrupted, never spawned, once its claim is on disk", async () => {
    const schedule = `[[schedule]]\nname = "late"\ncron = "0 0 1 1 *"\nkind = "command"\ncommand = [${JSON.stringify(process.execPath)}, "-e", ""]\nproject_dir = "../work"\n`;
    const d = await run(writeCronConfig(tempDir(), schedule));
    const fired: unknown[] = [];
    d.on("fire", (e) => fired.push(e));
    const slot = new Date(Date.UTC(2027, 0, 1));
    const answer = d.onSlot("late", slot, "manual");
    if (!answer?.ok || answer.runId === undefined) throw new Error("expected a launch");
    const { runId } = answer;
    // The claim is made in the next turn; the spawn waits for its fsync, and the daemon stops first.
    await new Promise((r) => setImmediate(r));
    expect(d.ledger.replay(runId)?.summary.status).toBe("pending");
    await d.shutdown("terminate", 1_000);
    expect(fired).toEqual([]);
    expect(d.ledger.replay(runId)?.events.map((e) => e.event)).toEqual([
      "scheduled",
      "interrupted",
    ]);
    expect(d.ledger.pending()).toEqual([]);
  });
});
