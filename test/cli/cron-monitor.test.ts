import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { TaskStore } from "../../src/harness/tasks/store.js";
import { JournalWriter } from "../../src/journal/append.js";
import { MonitorService } from "../../src/monitor/service.js";
import { loadConfig } from "../../src/scheduler/config/config.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";

afterEach(cleanupTempDirs);

const RUN = "run-20260407-1200-cd34";

function cron(cwd: string, ...args: string[]) {
  return execa(process.execPath, [AUTOLOOP_CRON, ...args], {
    reject: false,
    cwd,
    env: cleanEnv(),
    extendEnv: false,
  });
}

/** A config dir with a state dir and one project whose run is stuck at its gate. */
function stuckProject() {
  const root = tempDir("autoloop-cron-monitor-");
  writeFileSync(join(root, "autoloop-cron.toml"), 'state_dir = "state"\n');
  const project = join(root, "project");
  mkdirSync(join(project, ".autoloop"), { recursive: true });
  const journal = join(project, ".autoloop", "journal.jsonl");
  const writer = new JournalWriter(journal);
  const ts = (sec: number) => new Date(Date.now() - 600_000 + sec * 1000).toISOString();
  writer.append({
    shape: "system",
    run: RUN,
    topic: "loop.start",
    ts: ts(0),
    v: 1,
    fields: { objective: "write the docs", preset: "autodoc", work_dir: project },
  });
  const tasks = new TaskStore(join(project, ".autoloop", "runs", RUN, "tasks.jsonl"));
  tasks.add("document the flags");
  for (const sec of [60, 120, 180]) {
    const fields = { blocked_topic: "task.complete", open_tasks: "task-1" };
    writer.append({
      shape: "system",
      run: RUN,
      iteration: "1",
      topic: "task.gate",
      ts: ts(sec),
      v: 1,
      fields,
    });
  }
  writer.close();
  return { root, journal, state: join(root, "state") };
}

describe("autoloop-cron monitor, status, incident, alert", () => {
  it("monitor --once turns a stuck journal into a sink mail, status lists it, ack quiets it", async () => {
    const { root, journal, state } = stuckProject();
    const clear = await cron(root, "status");
    expect(clear.exitCode).toBe(0);
    expect(clear.stdout).toMatch(/^All clear/);

    const once = await cron(root, "monitor", "--once", "--journal", journal);
    expect(once.stderr).toBe("");
    expect(once.exitCode).toBe(0);
    expect(once.stdout).toMatch(/firing\s+gate_stuck/);
    expect(once.stdout).toMatch(/sink\s+delivered\s+wrote /);
    expect(readdirSync(join(state, "mail")).filter((f) => f.endsWith(".eml"))).toHaveLength(1);

    const again = await cron(root, "monitor", "--once", "--journal", journal);
    expect(again.stdout).toContain("no new alerts");

    const status = await cron(root, "status");
    expect(status.exitCode).toBe(1);
    expect(status.stdout).toContain(`run ${RUN}: completion gate refused task.complete 3 times`);
    expect(status.stdout).toContain("gate-stuck");
    const json = JSON.parse((await cron(root, "status", "--json")).stdout);
    expect(json.needsHuman).toBe(true);
    expect(json.firing[0].fingerprint).toBe(`gate_stuck:${RUN}`);

    const list = await cron(root, "incident", "list");
    expect(list.stdout).toContain("critical");
    const slug = readdirSync(join(state, "incidents"))[0]!.replace(/\.md$/, "");
    const ack = await cron(root, "incident", "ack", "gate-stuck", "on", "it");
    expect(ack.exitCode).toBe(0);
    expect(ack.stdout).toContain(`acknowledged ${slug}`);
    const silences = JSON.parse(readFileSync(join(state, "monitor", "silences.json"), "utf8"));
    expect(silences.acks[0].fingerprint).toBe(`gate_stuck:${RUN}`);
    expect((await cron(root, "incident", "show", slug)).stdout).toContain("on it");

    // Hours later the reminder is due, but the ack stops it.
    const later = new MonitorService({
      config: loadConfig(join(root, "autoloop-cron.toml")),
      logger: pino({ level: "silent" }),
      journals: [journal],
      now: () => new Date(Date.now() + 5 * 3_600_000),
    });
    try {
      expect((await later.runOnce()).notifications).toEqual([]);
    } finally {
      await later.stop();
    }
    const acked = await cron(root, "status");
    expect(acked.exitCode).toBe(0);
    expect(acked.stdout).toContain("(acked)");
  }, 60_000); // eight CLI processes: on a loaded 2-core machine, more than 30 s

  it("alert test goes through its own outbox to the sink; silences are listed", async () => {
    const { root, state } = stuckProject();
    const test = await cron(root, "alert", "test");
    expect(test.exitCode).toBe(0);
    expect(test.stdout).toMatch(/sink\s+delivered/);
    expect(existsSync(join(state, "outbox-cli.jsonl"))).toBe(true);
    expect(existsSync(join(state, "outbox.jsonl"))).toBe(false);

    const silence = await cron(
      root,
      "alert",
      "silence",
      "kind=run_stalled",
      "--for",
      "2h",
      "--comment",
      "slow CI",
    );
    expect(silence.exitCode).toBe(0);
    expect((await cron(root, "alert", "silences")).stdout).toContain("slow CI");
    const bad = await cron(root, "alert", "silence", "colour=red", "--for", "2h");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('unknown key "colour"');
    const unknown = await cron(root, "alert", "ack", "nothing-like-this");
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('no incident matches "nothing-like-this"');
  });

  it("every command has --help with examples", async () => {
    const root = tempDir("autoloop-cron-help-");
    for (const command of ["monitor", "status", "incident", "alert"]) {
      const help = await cron(root, command, "--help");
      expect(help.exitCode, command).toBe(0);
      expect(help.stdout, command).toContain("Examples:");
    }
  });
});
