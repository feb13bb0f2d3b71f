import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { JournalWriter } from "../../src/journal/append.js";
import type { AlertMessage } from "../../src/monitor/alerts/message.js";
import { MonitorService } from "../../src/monitor/service.js";
import { readStatus } from "../../src/monitor/status.js";
import { scheduleRow } from "../../src/operator/overview.js";
import { loadConfig } from "../../src/scheduler/config/config.js";
import { SchedulerDaemon } from "../../src/scheduler/daemon/daemon.js";
import { RunLedger } from "../../src/scheduler/ledger/ledger.js";
import { validateAll } from "../../src/scheduler/schedules/validate.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";

const T0 = Date.parse("2026-04-07T12:00:00.000Z");
const RUN = "nightly-20260407T1200-ab12c";
const silent = pino({ level: "silent" });

const services: MonitorService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.stop();
  cleanupTempDirs();
});

const CONFIG = `state_dir = "state"
schedules_dir = "schedules"

[[channel]]
name = "ops"
type = "email"
from = "cron@example.com"
to = ["ops@example.com"]

[[channel]]
name = "team"
type = "email"
from = "cron@example.com"
to = ["team@example.com"]
`;

const SCHEDULE = `[[schedule]]
name = "nightly"
cron = "0 2 * * *"
timezone = "Europe/Berlin"
kind = "command"
command = ["true"]
project_dir = "../project"
alert = ["ops"]
`;

/** A config whose schedule `nightly` launched RUN, which the scheduler then timed out. */
function scheduledWorld() {
  const root = tempDir("autoloop-monitor-sched-");
  writeFileSync(join(root, "autoloop-cron.toml"), CONFIG);
  mkdirSync(join(root, "schedules"));
  writeFileSync(join(root, "schedules", "nightly.toml"), SCHEDULE);
  const project = join(root, "project");
  const journal = join(project, ".autoloop", "journal.jsonl");
  const writer = new JournalWriter(journal);
  const ts = new Date(T0).toISOString();
  const fields = { objective: "nightly cleanup", preset: "autofix", work_dir: project };
  writer.append({ shape: "system", run: RUN, topic: "loop.start", ts, v: 1, fields });
  writer.close();
  const state = join(root, "state");
  const ledger = RunLedger.open(state, { logger: silent, now: () => new Date(T0) });
  const slot = new Date(T0);
  const planned = { runId: RUN, schedule: "nightly", slot, trigger: "cron" as const };
  ledger.schedule({ ...planned, kind: "command", argv: ["true"], cwd: project });
  ledger.started(RUN, { pid: 1, outputPath: "out.log", journalPath: journal, journalOffset: 0 });
  ledger.killed(RUN, "timeout", "ran past its timeout");
  ledger.finished(RUN, {
    status: "timed_out",
    basis: "timeout",
    durationMs: 5000,
    journalPath: journal,
  });
  // A monitor that was already watching (a first look would only list what ended before it).
  mkdirSync(join(state, "monitor"), { recursive: true });
  writeFileSync(join(state, "monitor", "alerts.json"), '{"version": 1, "alerts": []}\n');
  writeFileSync(
    join(state, "monitor", "watching-since"),
    `${new Date(T0 - 3_600_000).toISOString()}\n`,
  );
  return { root, state, config: loadConfig(join(root, "autoloop-cron.toml")) };
}

function enqueued(state: string): Array<{ channel: string; message: AlertMessage }> {
  return readFileSync(join(state, "outbox.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((r) => r.type === "enqueued");
}

describe("MonitorService with the scheduler's files", () => {
  it("maps runs to schedules via the ledger, takes its timeout verdict and the schedule's channels", async () => {
    const { state, config } = scheduledWorld();
    const s = new MonitorService({ config, logger: silent, now: () => new Date(T0 + 60_000) });
    services.push(s);
    const result = await s.runOnce();
    expect(result.notifications.map((n) => n.condition.kind)).toEqual(["run_timed_out"]);
    const [entry, ...rest] = enqueued(state);
    expect(rest).toEqual([]);
    expect(entry!.channel).toBe("ops");
    expect(entry!.message).toMatchObject({
      kind: "run_timed_out",
      schedule: "nightly",
      runId: RUN,
      preset: "autofix",
      objective: "nightly cleanup",
      timezone: "Europe/Berlin",
    });
    expect(entry!.message.commands.ack).toMatch(
      /^autoloop-cron incident ack run-timed-out-nightly/,
    );
    // What webhooks carry too: the group, its key and its count of failures in a row.
    expect(entry!.message.fingerprint).toBe("run_timed_out:schedule/nightly");
    expect(entry!.message.group).toMatchObject({
      by: "schedule",
      kind: "run_timed_out",
      consecutiveFailures: 1,
      runs: [`run ${RUN} timed out and was killed by the scheduler`],
    });
  });

  it("pages again when a run fails after an operator resolved the incident", async () => {
    const { state, config } = scheduledWorld();
    let now = T0 + 60_000;
    const s = new MonitorService({ config, logger: silent, now: () => new Date(now) });
    services.push(s);
    expect((await s.runOnce()).notifications.map((n) => n.kind)).toEqual(["firing"]);
    s.incidents.resolve("run-timed-out-nightly", "raised the timeout");
    // The next slot's run times out too.
    const ledger = RunLedger.open(state, { logger: silent, now: () => new Date(now) });
    const next = "nightly-20260407T1300-cd34e";
    const planned = { runId: next, schedule: "nightly", slot: new Date(T0 + 3_600_000) };
    ledger.schedule({ ...planned, trigger: "cron", kind: "command", argv: ["true"], cwd: state });
    ledger.killed(next, "timeout", "ran past its timeout");
    ledger.finished(next, {
      status: "timed_out",
      basis: "timeout",
      durationMs: 10,
      journalPath: "",
    });
    now = T0 + 2 * 3_600_000;
    expect((await s.runOnce()).notifications.map((n) => n.kind)).toEqual(["update"]);
    expect(readdirSync(join(state, "incidents")).sort()).toEqual([
      "run-timed-out-nightly-2.md",
      "run-timed-out-nightly.md",
    ]);
    const firing = enqueued(state).filter((e) => e.message.status === "firing");
    expect(firing.map((e) => e.message.incident?.slug)).toEqual([
      "run-timed-out-nightly",
      "run-timed-out-nightly-2",
    ]);
  });

  it("sends nothing when a daemon restarts with a schedule's group firing", async () => {
    const { state, config } = scheduledWorld();
    const first = new MonitorService({ config, logger: silent, now: () => new Date(T0 + 60_000) });
    services.push(first);
    expect((await first.runOnce()).notifications.map((n) => n.kind)).toEqual(["firing"]);
    await first.stop();
    services.length = 0;
    // The daemon has not loaded its schedule files yet when the monitor first evaluates.
    const daemon = new SchedulerDaemon(config, { logger: silent });
    const second = new MonitorService({
      config,
      logger: silent,
      daemon,
      now: () => new Date(T0 + 120_000),
    });
    services.push(second);
    expect(second.evaluate()).toEqual([]);
    await daemon.reload();
    expect(second.evaluate()).toEqual([]);
    expect(enqueued(state).map((e) => e.message.status)).toEqual(["firing"]);
  });

  it("resolves a removed schedule's incident, saying why", async () => {
    const { root, state, config } = scheduledWorld();
    let now = T0 + 60_000;
    const s = new MonitorService({ config, logger: silent, now: () => new Date(now) });
    services.push(s);
    expect((await s.runOnce()).notifications.map((n) => n.kind)).toEqual(["firing"]);
    rmSync(join(root, "schedules", "nightly.toml"));
    now += 60_000; // the standalone monitor re-reads schedule files every 30 s
    const result = await s.runOnce();
    expect(result.notifications.map((n) => `${n.kind}: ${n.note}`)).toEqual([
      "resolved: schedule nightly was removed from the config",
    ]);
    const incident = readFileSync(join(state, "incidents", "run-timed-out-nightly.md"), "utf8");
    expect(incident).toMatch(/status: "?resolved/);
    expect(incident).toContain("Resolved: schedule nightly was removed from the config");
  });

  it("alerts on an invalid schedule file through the [monitor] channels", async () => {
    const { root, state, config } = scheduledWorld();
    writeFileSync(
      join(root, "schedules", "broken.toml"),
      `[[schedule]]\nname = "x"\ncron = "bad"\n`,
    );
    const s = new MonitorService({ config, logger: silent, now: () => new Date(T0 + 60_000) });
    services.push(s);
    const result = await s.runOnce();
    const kinds = result.notifications.map((n) => n.condition.kind).sort();
    expect(kinds).toEqual(["config_invalid", "run_timed_out"]);
    const invalid = enqueued(state).filter((e) => e.message.kind === "config_invalid");
    expect(invalid.map((e) => e.channel).sort()).toEqual(["ops", "team"]);
    expect(invalid[0]!.message.detail).toContain("broken.toml");
    // What the daemon does, as the status page says it: the last valid version stays in force.
    expect(invalid[0]!.message.summary).toContain("the schedules of its last valid version run");
  });

  it("in the daemon's process: schedule journals, fire and missed events", async () => {
    const { root, state, config } = scheduledWorld();
    const daemon = new SchedulerDaemon(config, { logger: silent });
    const s = new MonitorService({
      config,
      logger: silent,
      daemon,
      now: () => new Date(T0 + 60_000),
    });
    services.push(s);
    await daemon.reload();
    const journal = join(root, "project", ".autoloop", "journal.jsonl");
    const writer = new JournalWriter(journal);
    const ts = new Date(T0 + 30_000).toISOString();
    writer.append({ shape: "system", run: "adhoc", topic: "loop.start", ts, v: 1, fields: {} });
    writer.append({
      shape: "system",
      run: "adhoc",
      iteration: "1",
      topic: "loop.stop",
      ts,
      v: 1,
      fields: { reason: "auth_failed" },
    });
    writer.close();
    daemon.emit("fire", {
      schedule: "nightly",
      slot: new Date(T0),
      runId: "adhoc",
      trigger: "manual",
      latenessMs: 0,
    });
    daemon.emit("missed", {
      schedule: "nightly",
      slots: [new Date(T0 - 86_400_000)],
      reason: "daemon_down",
    });
    const result = await s.runOnce();
    expect(s.status().journals.map((j) => j.path)).toEqual([journal]);
    const kinds = result.notifications.map((n) => `${n.condition.kind}:${n.condition.schedule}`);
    expect(kinds.sort()).toEqual([
      "run_failed:nightly",
      "run_timed_out:nightly",
      "schedule_trouble:nightly",
    ]);
    expect(new Set(enqueued(state).map((e) => e.channel))).toEqual(new Set(["ops"]));
  });
});

describe("the status page and the CLI agree on a failing schedule", () => {
  it("shows a run that gave up at its gate as gate_stuck, failing since its ledger end", async () => {
    const { root, state, config } = scheduledWorld();
    // A second run of nightly: refused at its gate twice, then gave up (max_iterations).
    const gaveUp = "nightly-20260407T1300-cd34e";
    const project = join(root, "project");
    const journal = join(project, ".autoloop", "journal.jsonl");
    const writer = new JournalWriter(journal);
    const ts = (s: number) => new Date(T0 + 3_600_000 + s * 1000).toISOString();
    const fields = { objective: "nightly cleanup", preset: "autofix", work_dir: project };
    writer.append({ shape: "system", run: gaveUp, topic: "loop.start", ts: ts(0), v: 1, fields });
    for (const s of [10, 20]) {
      const gate = { blocked_topic: "task.complete", open_tasks: "task-1" };
      writer.append({
        shape: "system",
        run: gaveUp,
        topic: "task.gate",
        ts: ts(s),
        v: 1,
        fields: gate,
      });
    }
    const stop = { reason: "max_iterations" };
    writer.append({
      shape: "system",
      run: gaveUp,
      topic: "loop.stop",
      ts: ts(30),
      v: 1,
      fields: stop,
    });
    writer.close();
    const ledger = RunLedger.open(state, { logger: silent, now: () => new Date(T0 + 3_631_000) });
    const planned = { runId: gaveUp, schedule: "nightly", slot: new Date(T0 + 3_600_000) };
    ledger.schedule({ ...planned, trigger: "cron", kind: "command", argv: ["true"], cwd: project });
    ledger.started(gaveUp, { pid: 1, outputPath: "o", journalPath: journal, journalOffset: 0 });
    ledger.finished(gaveUp, {
      status: "failed",
      basis: "journal",
      stopReason: "max_iterations",
      durationMs: 31_000,
      journalPath: journal,
    });
    // Between the two, a run killed by a signal nobody sent: a crash, which the streak counts.
    const crashed = "nightly-20260407T1230-ef56a";
    const slot = { runId: crashed, schedule: "nightly", slot: new Date(T0 + 1_800_000) };
    ledger.schedule({ ...slot, trigger: "cron", kind: "command", argv: ["true"], cwd: project });
    ledger.started(crashed, { pid: 2, outputPath: "o", journalPath: journal, journalOffset: 0 });
    const interrupted = { status: "interrupted", basis: "exit", signal: "SIGKILL" } as const;
    ledger.finished(crashed, { ...interrupted, durationMs: 1_000, journalPath: journal });
    const now = new Date(T0 + 3_700_000);
    const s = new MonitorService({ config, logger: silent, now: () => now });
    services.push(s);
    await s.runOnce();
    const firing = readStatus(config, now).firing;
    const gate = firing.find((f) => f.group?.kind === "gate_stuck");
    expect(gate?.kind).toBe("gate_stuck");
    // The page's row for nightly: the same streak, the same "failing since".
    const schedules = validateAll(config).schedules;
    const row = scheduleRow(schedules.find((x) => x.name === "nightly")!, {
      schedules,
      ledger: RunLedger.open(state, { logger: silent }),
      pause: { all: false, schedules: [] },
      killSwitch: false,
      nextFire: () => undefined,
    });
    const sinces = firing.map((f) => f.group?.failingSince);
    expect(row.consecutiveFailures).toBe(3);
    expect(row.failingSince).toBe(new Date(T0).toISOString());
    expect(sinces).toContain(row.failingSince);
  });
});
