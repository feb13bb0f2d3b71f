import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { execa } from "execa";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { TaskStore } from "../../src/harness/tasks/store.js";
import { JournalWriter } from "../../src/journal/append.js";
import type { FieldValue } from "../../src/journal/codec.js";
import { MonitorService, type MonitorServiceOptions } from "../../src/monitor/service.js";
import { SilenceStore } from "../../src/monitor/silences.js";
import { type CronConfig, parseConfigText } from "../../src/scheduler/config/config.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

const T0 = Date.parse("2026-04-07T12:00:00.000Z");
const at = (sec: number) => new Date(T0 + sec * 1000).toISOString();
const RUN = "run-20260407-1200-ab12";

const services: MonitorService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.stop();
  cleanupTempDirs();
});

interface World {
  state: string;
  project: string;
  journal: string;
  config: CronConfig;
  clock: { ms: number };
  writer: JournalWriter;
}

function world(configText = ""): World {
  const root = tempDir("autoloop-monitor-");
  const state = join(root, "state");
  const project = join(root, "project");
  mkdirSync(join(project, ".autoloop"), { recursive: true });
  const journal = join(project, ".autoloop", "journal.jsonl");
  const text = `state_dir = "state"\n[monitor]\njournals = ["project/.autoloop/*.jsonl"]\n${configText}`;
  const parsed = parseConfigText("autoloop-cron.toml", text, root);
  if (parsed.config === undefined) throw new Error(JSON.stringify(parsed.problems));
  return {
    state,
    project,
    journal,
    config: parsed.config,
    clock: { ms: T0 },
    writer: new JournalWriter(journal),
  };
}

function service(w: World, options: Partial<MonitorServiceOptions> = {}): MonitorService {
  const s = new MonitorService({
    config: w.config,
    logger: pino({ level: "silent" }),
    now: () => new Date(w.clock.ms),
    ...options,
  });
  services.push(s);
  return s;
}

function sys(w: World, sec: number, topic: string, fields: Record<string, FieldValue> = {}) {
  const iteration = topic === "loop.start" ? {} : { iteration: "1" };
  w.writer.append({ shape: "system", run: RUN, ...iteration, topic, ts: at(sec), v: 1, fields });
}

function startRun(w: World): void {
  sys(w, 0, "loop.start", {
    objective: "fix the login test",
    preset: "autofix",
    work_dir: w.project,
  });
}

function refuse(w: World, sec: number): void {
  sys(w, sec, "task.gate", { blocked_topic: "task.complete", open_tasks: "task-1,task-2" });
}

function openTasks(w: World): void {
  const store = new TaskStore(join(w.project, ".autoloop", "runs", RUN, "tasks.jsonl"));
  store.add("write the report");
  store.add("fix the flaky test");
}

const mails = (w: World) =>
  existsSync(join(w.state, "mail"))
    ? readdirSync(join(w.state, "mail"))
        .filter((f) => f.endsWith(".eml"))
        .sort()
    : [];
/** A sink .eml with quoted-printable undone, so texts can be searched. */
const emlText = (w: World, name: string) =>
  Buffer.from(
    readFileSync(join(w.state, "mail", name), "latin1")
      .replace(/=\r?\n/g, "")
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      ),
    "latin1",
  ).toString("utf8");
const incidents = (w: World) =>
  existsSync(join(w.state, "incidents")) ? readdirSync(join(w.state, "incidents")) : [];
const summary = (r: { notifications: { kind: string; condition: { kind: string } }[] }) =>
  r.notifications.map((n) => `${n.kind}:${n.condition.kind}`);

function stuckRun(w: World): void {
  startRun(w);
  openTasks(w);
  for (const sec of [60, 120, 180]) refuse(w, sec);
}

describe("MonitorService", () => {
  it("fires one gate_stuck alert with an incident and resolves it after progress", async () => {
    const w = world();
    stuckRun(w);
    w.clock.ms = T0 + 200_000;
    const s = service(w);
    expect(summary(await s.runOnce())).toEqual(["firing:gate_stuck"]);
    expect(mails(w)).toHaveLength(1);
    const eml = emlText(w, mails(w)[0]!);
    expect(eml).toContain(RUN);
    expect(eml).toContain("write the report");
    expect(eml).toContain(`autoloop-cron stop ${RUN}`);
    const [incident] = incidents(w);
    expect(incident).toMatch(/^gate-stuck/);
    const text = readFileSync(join(w.state, "incidents", incident!), "utf8");
    expect(text).toMatch(/priority: "?critical/);
    expect(text).toContain(`fingerprint: "gate_stuck:${RUN}"`);

    expect(s.status().openIncidents).toBe(1);
    expect(summary(await s.runOnce())).toEqual([]);
    w.writer.append({
      shape: "agent",
      run: RUN,
      iteration: "2",
      topic: "work.done",
      ts: at(240),
      v: 1,
      payload: "done",
      source: "agent",
    });
    w.clock.ms = T0 + 250_000;
    expect(summary(await s.runOnce())).toEqual([]);
    w.clock.ms = T0 + 250_000 + 11 * 60_000;
    expect(summary(await s.runOnce())).toEqual(["resolved:gate_stuck"]);
    expect(s.status().openIncidents).toBe(0);
    expect(mails(w)).toHaveLength(2);
    expect(readFileSync(join(w.state, "incidents", incident!), "utf8")).toMatch(
      /status: "?resolved/,
    );
  });

  it("sends nothing after a restart when nothing changed", async () => {
    const w = world();
    stuckRun(w);
    w.clock.ms = T0 + 200_000;
    const first = service(w);
    expect(summary(await first.runOnce())).toEqual(["firing:gate_stuck"]);
    await first.stop();
    services.length = 0;
    const second = service(w);
    expect(summary(await second.runOnce())).toEqual([]);
    expect(mails(w)).toHaveLength(1);
    expect(incidents(w)).toHaveLength(1);
  });

  it("reports a failed run as run_failed and not as a stuck gate", async () => {
    const w = world();
    startRun(w);
    w.clock.ms = T0 + 10_000;
    const s = service(w);
    expect(summary(await s.runOnce())).toEqual([]);
    openTasks(w);
    for (const sec of [60, 120, 180]) refuse(w, sec);
    sys(w, 200, "loop.stop", { reason: "backend_failed", iteration: "1", output_tail: "boom" });
    w.clock.ms = T0 + 210_000;
    const result = await s.runOnce();
    expect(summary(result)).toEqual(["firing:run_failed"]);
    expect(incidents(w)[0]).toMatch(/^run-failed/);
  });

  it("does not page on a first look at runs that ended before it (they are listed)", async () => {
    const w = world();
    stuckRun(w);
    sys(w, 200, "loop.stop", { reason: "max_iterations", iteration: "3" });
    w.clock.ms = T0 + 3_600_000;
    const s = service(w);
    expect(summary(await s.runOnce())).toEqual([]);
    expect(mails(w)).toEqual([]);
    expect(s.status().firing.map((f) => f.fingerprint)).toEqual([`gate_stuck:${RUN}`]);
    // A restart is not a first look: a run that ends while the monitor is down does page.
    await s.stop();
    services.length = 0;
    const other = "run-20260407-1300-ef56";
    w.writer.append({
      shape: "system",
      run: other,
      topic: "loop.start",
      ts: at(3_600),
      v: 1,
      fields: {},
    });
    w.writer.append({
      shape: "system",
      run: other,
      iteration: "1",
      topic: "loop.stop",
      ts: at(3_660),
      v: 1,
      fields: { reason: "backend_failed", output_tail: "Error: boom" },
    });
    w.clock.ms = T0 + 3_700_000;
    expect(summary(await service(w).runOnce())).toEqual(["firing:run_failed"]);
  });

  it("reports a run whose harness died without a terminal record as crashed", async () => {
    const w = world();
    startRun(w);
    w.clock.ms = T0 + 5_000;
    const s = service(w);
    expect(summary(await s.runOnce())).toEqual([]);
    sys(w, 30, "iteration.start", { recent_event: "loop.start" });
    const child = execa(process.execPath, ["-e", ""]);
    await child;
    const registry = join(w.project, ".autoloop", "registry.jsonl");
    appendFileSync(
      registry,
      `${JSON.stringify({ run_id: RUN, status: "running", pid: child.pid })}\n`,
    );
    w.clock.ms = T0 + 90_000;
    expect(summary(await s.runOnce())).toEqual(["firing:run_crashed"]);
  });

  it("does not call a run on another host crashed: its pid means nothing here", async () => {
    const w = world();
    startRun(w);
    sys(w, 30, "iteration.start", { recent_event: "loop.start" });
    const registry = join(w.project, ".autoloop", "registry.jsonl");
    const entry = { run_id: RUN, status: "running", pid: 999_999, host: "another-pod-7f9c" };
    appendFileSync(registry, `${JSON.stringify(entry)}\n`);
    w.clock.ms = T0 + 90_000;
    expect(summary(await service(w).runOnce())).toEqual([]);
  });

  it("understands a journal in the public autoloop's exact byte format", async () => {
    const w = world();
    openTasks(w);
    const dir = w.project.replace(/\\/g, "\\u005c");
    const lines = [
      `{"run": "${RUN}", "topic": "loop.start", "ts": "${at(0)}", "v": 1, "fields": {"objective": "say \\u0022hi\\u0022\\u000aand more", "preset": "autocode", "trigger": "cli", "created_at": "${at(0)}", "project_dir": "${dir}", "work_dir": "${dir}", "backend": "claude", "backend_args": "", "parent_run_id": "", "isolation_mode": "run-scoped", "max_iterations": "3", "completion_event": "task.complete", "completion_promise": "LOOP_COMPLETE"}}`,
      `{"run": "${RUN}", "iteration": "1", "topic": "task.gate", "ts": "${at(60)}", "v": 1, "fields": {"blocked_topic": "task.complete", "open_tasks": "task-1,task-2"}}`,
      `{"run":"${RUN}","iteration":"2","topic":"task.gate","ts":"${at(120)}","v":1,"fields":{"blocked_topic":"task.complete","open_tasks":"task-1,task-2"}}`,
      `{"run": "${RUN}", "iteration": "3", "topic": "task.gate", "ts": "${at(180)}", "v": 1, "fields": {"blocked_topic": "task.complete", "open_tasks": "task-1,task-2"}}`,
      `{"run": "${RUN}", "iteration": "3", "topic": "torn`,
    ];
    appendFileSync(w.journal, `${lines.join("\n")}`);
    w.clock.ms = T0 + 200_000;
    const result = await service(w).runOnce();
    expect(summary(result)).toEqual(["firing:gate_stuck"]);
    const eml = emlText(w, mails(w)[0]!);
    expect(eml).toContain("autocode");
    expect(eml).toContain("fix the flaky test");
  });

  it("still alerts when the run's tasks file is out of sight", async () => {
    const w = world();
    startRun(w);
    for (const sec of [60, 120, 180]) refuse(w, sec);
    w.clock.ms = T0 + 200_000;
    expect(summary(await service(w).runOnce())).toEqual(["firing:gate_stuck"]);
  });

  it("stops reminders once the alert is acked", async () => {
    const w = world();
    stuckRun(w);
    w.clock.ms = T0 + 200_000;
    const s = service(w);
    await s.runOnce();
    w.clock.ms += 4 * 3_600_000 + 60_000;
    expect(summary(await s.runOnce())).toEqual(["reminder:gate_stuck"]);
    new SilenceStore(join(w.state, "monitor", "silences.json")).ack(
      `gate_stuck:${RUN}`,
      new Date(w.clock.ms),
    );
    w.clock.ms += 9 * 3_600_000;
    // No paging service to tell: nothing goes out, and no third mail.
    expect(summary(await s.runOnce())).toEqual([]);
    expect(mails(w)).toHaveLength(2);
  });

  it("posts to a webhook channel named by [monitor] alert", async () => {
    const received: Array<{ type: string; data: Record<string, unknown> }> = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        received.push(JSON.parse(body));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const w = world(
        `alert = ["hook"]\n[[channel]]\nname = "hook"\ntype = "webhook"\nurl = "http://127.0.0.1:${port}/alerts"\n`,
      );
      stuckRun(w);
      w.clock.ms = T0 + 200_000;
      const result = await service(w).runOnce();
      expect(result.outcomes.map((o) => `${o.channel}:${o.kind}`)).toEqual(["hook:delivered"]);
      expect(received).toHaveLength(1);
      expect(received[0]!.type).toBe("alert.firing");
      expect(received[0]!.data).toMatchObject({
        kind: "gate_stuck",
        runId: RUN,
        preset: "autofix",
      });
      expect(mails(w)).toEqual([]);
    } finally {
      server.close();
    }
  });

  it("follows journals once started and delivers without being asked", async () => {
    const w = world();
    startRun(w);
    openTasks(w);
    w.clock.ms = T0 + 200_000;
    const s = service(w, { evaluateEveryMs: 100, follower: { pollIntervalMs: 50 } });
    await s.start();
    expect(mails(w)).toEqual([]);
    for (const sec of [60, 120, 180]) refuse(w, sec);
    await waitFor(() => mails(w).length === 1, "the gate_stuck alert in the sink");
    expect(s.status().firing.map((f) => f.kind)).toEqual(["gate_stuck"]);
  });
});
