import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readJournal } from "../../src/journal/reader.js";
import { isProcessAlive } from "../../src/util/process.js";
import { autoloop, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { field, journalOf, registryLines, topics } from "../helpers/journal.js";
import { waitFor } from "../helpers/wait.js";

afterEach(cleanupTempDirs);

describe("autoloop run with the demo agent", () => {
  it("refuses completion at the gate while tasks are open, then completes", async () => {
    const dir = tempDir();
    const run = await autoloop(
      [
        "run",
        "demo",
        "Write the report",
        "--run-id",
        "run-gate-1",
        "--trigger",
        "cron",
        "--parent-run-id",
        "parent-7",
      ],
      { cwd: dir },
    );
    expect(run.exitCode).toBe(0);
    const journal = journalOf(dir);
    expect(journal.every((r) => r.run === "run-gate-1")).toBe(true);
    const gate = journal.find((r) => r.topic === "task.gate");
    expect(field(gate, "blocked_topic")).toBe("task.complete");
    expect(field(gate, "open_tasks")).toBe("task-1,task-2");
    expect(gate?.iteration).toBe("2");
    // The log says what the agent did: a refused completion, not "emitted nothing".
    expect(run.stderr).toContain("emitted task.complete refused (open: task-1,task-2)");
    expect(topics(journal).at(-1)).toBe("loop.complete");
    expect(field(journal.at(-1), "reason")).toBe("completion_event");
    // The refused completion was not journaled as an agent event; the accepted one was.
    expect(journal.filter((r) => r.topic === "task.complete").map((r) => r.iteration)).toEqual([
      "3",
    ]);

    const start = journal[0]!;
    expect(start.topic).toBe("loop.start");
    expect(start.iteration).toBeUndefined();
    expect(start.shape === "system" && Object.keys(start.fields)).toEqual([
      "run_id",
      "objective",
      "preset",
      "trigger",
      "created_at",
      "project_dir",
      "work_dir",
      "backend",
      "backend_args",
      "parent_run_id",
      "isolation_mode",
      "max_iterations",
      "completion_event",
      "completion_promise",
    ]);
    expect(start.shape === "system" && start.fields).toMatchObject({
      run_id: "run-gate-1",
      objective: "Write the report",
      preset: "demo",
      trigger: "cron",
      parent_run_id: "parent-7",
      work_dir: dir,
      max_iterations: "12",
    });
    const raw = readFileSync(join(dir, ".autoloop/journal.jsonl"), "utf8").split("\n")[0]!;
    expect(raw).toMatch(
      /^\{"run": "run-gate-1", "topic": "loop.start", "ts": "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", "v": 1, "fields": \{"run_id": "run-gate-1", "objective": "Write the report", /,
    );

    const registry = registryLines(dir);
    expect(registry[0]).toMatchObject({ run_id: "run-gate-1", status: "running", trigger: "cron" });
    expect(registry.filter((r) => r.status === "running").length).toBeGreaterThanOrEqual(4);
    expect(registry.at(-1)).toMatchObject({
      status: "completed",
      stop_reason: "completion_event",
      iteration: 3,
    });
    expect(typeof registry[0]!.pid).toBe("number");

    const tasks = await autoloop(["inspect", "tasks", "--run", "run-gate-1"], { cwd: dir });
    expect(tasks.stdout).toContain("- [x] [task-1] [high] write the report (done)");
  });

  it("gates the completion promise too, with via completion_promise", async () => {
    const dir = tempDir();
    const run = await autoloop(["run", "demo", "promise mode", "--run-id", "run-p"], { cwd: dir });
    expect(run.exitCode).toBe(0);
    const journal = journalOf(dir);
    const gate = journal.find((r) => r.topic === "task.gate");
    expect(gate?.shape === "system" && gate.fields).toEqual({
      blocked_topic: "task.complete",
      open_tasks: "task-1,task-2",
      via: "completion_promise",
    });
    expect(field(journal.at(-1), "reason")).toBe("completion_promise");
  });

  it("journals a disallowed emit as event.invalid and tells the next prompt", async () => {
    const dir = tempDir();
    const run = await autoloop(
      ["run", "demo", "invalid", "--run-id", "run-i", "--max-iterations", "2"],
      { cwd: dir },
    );
    expect(run.exitCode).toBe(3);
    const journal = journalOf(dir);
    const invalid = journal.find((r) => r.topic === "event.invalid");
    expect(invalid?.shape === "system" && invalid.fields).toEqual({
      recent_event: "loop.start",
      emitted: "review.approved",
      suggested_roles: "builder",
      allowed_events: "build.done",
    });
    const second = journal.find((r) => r.topic === "iteration.start" && r.iteration === "2");
    expect(field(second, "prompt")).toContain(
      "Backpressure:\nEmitted `review.approved` after `loop.start`, which is not allowed now.",
    );
    expect(field(second, "prompt")).toContain("Allowed next events: build.done");
    expect(field(journal.at(-1), "reason")).toBe("max_iterations");
  });

  it("stops with backend_failed and exit 1 when the agent fails", async () => {
    const dir = tempDir();
    const run = await autoloop(["run", "demo", "fail", "--run-id", "run-f"], { cwd: dir });
    expect(run.exitCode).toBe(1);
    const stop = journalOf(dir).at(-1);
    expect(stop?.topic).toBe("loop.stop");
    expect(field(stop, "reason")).toBe("backend_failed");
    expect(field(stop, "output_tail")).toContain("failed on purpose");
    expect(registryLines(dir).at(-1)).toMatchObject({
      status: "failed",
      stop_reason: "backend_failed",
    });
  });

  it("times out a hanging agent and kills its whole process group, grandchild included", async () => {
    const dir = tempDir();
    const run = await autoloop(
      [
        "run",
        "demo",
        "hang",
        "--run-id",
        "run-h",
        "--set",
        "backend.timeout_ms=1500",
        "--set",
        "backend.kill_grace_ms=300",
      ],
      { cwd: dir },
    );
    expect(run.exitCode).toBe(1);
    const stop = journalOf(dir).at(-1);
    expect(field(stop, "reason")).toBe("backend_timeout");
    const finish = journalOf(dir).find((r) => r.topic === "backend.finish");
    expect(finish?.shape === "system" && finish.fields.timed_out).toBe(true);
    const grandchild = Number(
      readFileSync(join(dir, ".autoloop/runs/run-h/grandchild.pid"), "utf8"),
    );
    await waitFor(() => !isProcessAlive(grandchild), "the grandchild to be gone", 5000);
    expect(registryLines(dir).at(-1)).toMatchObject({ status: "timed_out" });
  });

  it("journals interrupted and terminates the agent group on SIGTERM", async () => {
    const dir = tempDir();
    const child = autoloop(
      ["run", "demo", "hang", "--run-id", "run-s", "--set", "backend.kill_grace_ms=300"],
      { cwd: dir },
    );
    const pidFile = join(dir, ".autoloop/runs/run-s/grandchild.pid");
    await waitFor(
      () => existsSync(pidFile) && readFileSync(pidFile, "utf8") !== "",
      "the agent to start",
    );
    child.kill("SIGTERM");
    const run = await child;
    expect(run.exitCode).toBe(130);
    const stop = journalOf(dir).at(-1);
    expect(stop?.topic).toBe("loop.stop");
    expect(field(stop, "reason")).toBe("interrupted");
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    await waitFor(() => !isProcessAlive(grandchild), "the grandchild to be gone", 5000);
  });

  it("refuses a run id already in the journal, with a usage exit code", async () => {
    const dir = tempDir();
    expect(
      (
        await autoloop(["run", "demo", "fail", "--run-id", "dup-1", "--max-iterations", "1"], {
          cwd: dir,
        })
      ).exitCode,
    ).toBe(3);
    const again = await autoloop(["run", "demo", "--run-id", "dup-1"], { cwd: dir });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('run id "dup-1" is already in');
  });

  it("tolerates a torn last journal line left by a crashed writer", async () => {
    const dir = tempDir();
    const journalFile = join(dir, ".autoloop/journal.jsonl");
    mkdirSync(join(dir, ".autoloop"), { recursive: true });
    writeFileSync(
      journalFile,
      '{"run": "old", "topic": "loop.start", "ts": "2026-01-01T00:00:00.000Z", "v": 1, "fields": {}}\n{"run": "old", "iteration": "1", "topic": "iter',
    );
    const run = await autoloop(["run", "demo", "Write it", "--run-id", "after-torn"], { cwd: dir });
    expect(run.exitCode).toBe(0);
    const result = readJournal(journalFile);
    expect(result.skipped).toBe(1);
    expect(result.items.filter((r) => r.run === "after-torn").at(-1)?.topic).toBe("loop.complete");
  });
});

describe("autoloop run with a custom preset", () => {
  function preset(dir: string, toml: string): string {
    const presetDir = join(dir, "p");
    mkdirSync(presetDir, { recursive: true });
    writeFileSync(join(presetDir, "autoloops.toml"), toml);
    return presetDir;
  }

  it("stops as stalled after N identical iterations", async () => {
    const dir = tempDir();
    const p = preset(
      dir,
      `[event_loop]\nmax_iterations = 10\nstall_iterations = 3\n[backend]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ["-e", "console.log('same every time')"]\nprompt_mode = "file"\n`,
    );
    const run = await autoloop(["run", p, "--run-id", "st"], { cwd: dir });
    expect(run.exitCode).toBe(3);
    const stop = journalOf(dir).at(-1);
    expect(stop?.shape === "system" && stop.fields).toEqual({
      reason: "stalled",
      completed_iterations: "3",
      identical_outputs: "3",
      stall_iterations: "3",
    });
  });

  it("refuses completion until the required events were emitted", async () => {
    const dir = tempDir();
    const run = await autoloop(
      [
        "run",
        "demo",
        "Write it",
        "--run-id",
        "req",
        "--set",
        'event_loop.required_events=["review.signed"]',
        "--max-iterations",
        "4",
      ],
      { cwd: dir },
    );
    expect(run.exitCode).toBe(3);
    const journal = journalOf(dir);
    expect(journal.some((r) => r.topic === "task.complete")).toBe(true);
    expect(field(journal.at(-1), "reason")).toBe("max_iterations");
    const prompt = field(journal.filter((r) => r.topic === "iteration.start").at(-1), "prompt");
    expect(prompt).toContain("Completion refused: required events not yet emitted: review.signed.");
  });

  it("stops at max_runtime", async () => {
    const dir = tempDir();
    const p = preset(
      dir,
      `[event_loop]\nmax_iterations = 50\nmax_runtime = 300\nstall_iterations = 0\n[backend]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ["-e", "setTimeout(() => {}, 200)"]\nprompt_mode = "file"\n`,
    );
    const run = await autoloop(["run", p, "--run-id", "rt"], { cwd: dir });
    expect(run.exitCode).toBe(3);
    const stop = journalOf(dir).at(-1);
    expect(field(stop, "reason")).toBe("max_runtime");
    expect(field(stop, "max_runtime_ms")).toBe("300");
    expect(Number(field(stop, "elapsed_ms"))).toBeGreaterThanOrEqual(300);
  });

  it("names file, field, value and fix for a bad preset", async () => {
    const dir = tempDir();
    const p = preset(
      dir,
      `[event_loop]\nmax_iterations = "lots"\n[backend]\ncommand = "x"\nprompt_mode = "pipe"\n`,
    );
    const run = await autoloop(["run", p], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      `${p}/autoloops.toml: event_loop.max_iterations: found "lots"; expected a number`,
    );
    expect(run.stderr).toContain(
      `${p}/autoloops.toml: backend.prompt_mode: found "pipe"; expected one of "arg", "stdin", "file"`,
    );
    const missing = await autoloop(["run", "no-such-preset"], { cwd: dir });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('preset "no-such-preset" not found');
  });

  it("rejects emit outside a loop with a clear message", async () => {
    const res = await autoloop(["emit", "x.y"], { cwd: tempDir() });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toContain("AUTOLOOP_RUN_ID");
  });
});
