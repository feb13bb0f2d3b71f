import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readJournal } from "../../src/journal/reader.js";
import { launchRun } from "../../src/scheduler/launch/launcher.js";
import { OutputCap } from "../../src/scheduler/launch/output-log.js";
import { isProcessAlive } from "../../src/util/process.js";
import { presetSpec, tempDirs, waitFor, waitForPidGone } from "../fixtures/fake-harness-helpers.js";

const dirs = tempDirs();
afterEach(dirs.cleanup);

const journalHas = (dir: string, runId: string, topic: string) => () =>
  readJournal(join(dir, ".autoloop", "journal.jsonl")).items.some(
    (r) => r.run === runId && r.topic === topic,
  );

describe("launchRun: outcomes from the harness journal", () => {
  it.each([
    ["complete", "completed", "completion_event", 0],
    ["fail", "failed", "backend_failed", 1],
    ["max-iterations", "failed", "max_iterations", 3],
    ["backend-timeout", "timed_out", "backend_timeout", 1],
  ])("%s → %s", async (objective, status, stopReason, exitCode) => {
    const dir = dirs.make();
    const handle = await launchRun(presetSpec(dir, objective));
    expect(handle.pid).toBeGreaterThan(0);
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status, stopReason, exitCode, basis: "journal" });
    expect(outcome.journalPath).toBe(join(dir, ".autoloop", "journal.jsonl"));
  });

  it("passes argv and the correlation environment to the harness", async () => {
    const dir = dirs.make();
    const spec = presetSpec(dir, "complete", { maxIterations: 7 });
    await (await launchRun(spec)).done;
    const start = readJournal(join(dir, ".autoloop", "journal.jsonl")).items[0];
    expect(start).toMatchObject({ run: spec.runId, topic: "loop.start" });
    expect(start?.shape === "system" && start.fields).toMatchObject({
      trigger: "cron",
      max_iterations: "7",
      cron_schedule: "nightly",
    });
  });

  it("reads only journal bytes appended after launch", async () => {
    const dir = dirs.make();
    const spec = presetSpec(dir, "crash");
    // A stale terminal record with the same run id, before the launch, must be ignored.
    mkdirSync(join(dir, ".autoloop"));
    const stale = {
      run: spec.runId,
      topic: "loop.complete",
      ts: "",
      v: 1,
      fields: { reason: "x" },
    };
    appendFileSync(join(dir, ".autoloop", "journal.jsonl"), `${JSON.stringify(stale)}\n`);
    const outcome = await (await launchRun(spec)).done;
    expect(outcome).toMatchObject({ status: "interrupted", signal: "SIGKILL", basis: "exit" });
  });

  it("a usage error (exit 2, no record) fails", async () => {
    const dir = dirs.make();
    const spec = presetSpec(dir, "complete", { preset: "bad-preset" });
    const outcome = await (await launchRun(spec)).done;
    expect(outcome).toMatchObject({ status: "failed", exitCode: 2, basis: "exit" });
    expect(readFileSync(spec.outputPath, "utf8")).toContain("usage: fake-harness run");
  });
});

describe("launchRun: timeouts and stops reach the whole process group", () => {
  it("times out: SIGTERM to the group kills the harness and its grandchild", async () => {
    const dir = dirs.make();
    const pidFile = join(dir, "grandchild.pid");
    const spec = presetSpec(dir, "spawn-grandchild-and-hang", {
      // Long enough for a loaded CI machine to start the harness and its grandchild first.
      timeoutMs: 2500,
      env: { FAKE_HARNESS_PIDFILE: pidFile },
    });
    const handle = await launchRun(spec);
    const grandchild = await waitFor("grandchild pid file", () => {
      try {
        return Number(readFileSync(pidFile, "utf8")) || undefined;
      } catch {
        return undefined;
      }
    });
    expect(isProcessAlive(grandchild)).toBe(true);
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: "timed_out", basis: "timeout", signal: "SIGTERM" });
    await waitForPidGone(grandchild);
  });

  it("SIGKILLs a harness that ignores SIGTERM once the grace is over", async () => {
    const dir = dirs.make();
    const spec = presetSpec(dir, "ignore-sigterm", { killGraceMs: 300 });
    const handle = await launchRun(spec);
    await waitFor("loop.start", journalHas(dir, spec.runId, "loop.start"));
    handle.stop("operator asked");
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: "killed", basis: "operator", signal: "SIGKILL" });
    expect(outcome.detail).toBe("operator asked");
    expect(outcome.durationMs).toBeGreaterThanOrEqual(300);
  });

  it("operator stop of a harness that journals `interrupted` is still `killed`", async () => {
    const dir = dirs.make();
    const spec = presetSpec(dir, "sigterm");
    const handle = await launchRun(spec);
    await waitFor("loop.start", journalHas(dir, spec.runId, "loop.start"));
    handle.stop("maintenance");
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: "killed", stopReason: "interrupted", exitCode: 130 });
  });

  it("a stop after the run ended changes nothing", async () => {
    const dir = dirs.make();
    const handle = await launchRun(presetSpec(dir, "complete"));
    const outcome = await handle.done;
    handle.stop("too late");
    expect(outcome.status).toBe("completed");
  });
});

describe("launchRun: output and command runs", () => {
  it("caps the output log with one marker line while draining the pipes", async () => {
    const dir = dirs.make();
    const spec = presetSpec(dir, "noisy", {
      outputCapBytes: 10_000,
      env: { FAKE_HARNESS_BYTES: "300000" },
    });
    const outcome = await (await launchRun(spec)).done;
    expect(outcome.status).toBe("completed");
    const text = readFileSync(spec.outputPath, "utf8");
    expect(text.endsWith("\n[output truncated at 10000 bytes]\n")).toBe(true);
    expect(statSync(spec.outputPath).size).toBe(
      10_000 + "\n[output truncated at 10000 bytes]\n".length,
    );
  });

  it("cuts the log back to the cap with one marker, and later growth too", () => {
    const path = join(dirs.make(), "run.log");
    writeFileSync(path, "0123456789");
    const cap = new OutputCap(path, 10);
    cap.check();
    expect(cap.truncated).toBe(false);
    appendFileSync(path, "abc");
    cap.check();
    appendFileSync(path, "def");
    cap.check();
    expect(readFileSync(path, "utf8")).toBe("0123456789\n[output truncated at 10 bytes]\n");
    expect(cap.truncated).toBe(true);
  });

  it.each([
    [["-e", "process.stdout.write('hello')"], "completed", 0],
    [["-e", "process.exit(3)"], "failed", 3],
  ])("command %j → %s", async (args, status, exitCode) => {
    const dir = dirs.make();
    const base = presetSpec(dir, "unused");
    const handle = await launchRun({
      ...base,
      kind: "command",
      command: [process.execPath, ...args],
    });
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status, exitCode, basis: "exit" });
    if (exitCode === 0) expect(readFileSync(base.outputPath, "utf8")).toBe("hello");
  });

  it("stops waiting for pipes held by a descendant that escaped the group", async () => {
    const dir = dirs.make();
    const pidFile = join(dir, "escaped.pid");
    // The child starts a new session (own group) that inherits our stdout pipe, then exits.
    const script = `const c = require("child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1e9)"], { detached: true, stdio: ["ignore", "inherit", "inherit"] }); require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); c.unref();`;
    const base = presetSpec(dir, "unused", { killGraceMs: 200 });
    const handle = await launchRun({
      ...base,
      kind: "command",
      command: [process.execPath, "-e", script],
    });
    const outcome = await handle.done;
    const escaped = Number(readFileSync(pidFile, "utf8"));
    process.kill(escaped, "SIGKILL");
    expect(outcome).toMatchObject({ status: "completed", exitCode: 0 });
    await waitForPidGone(escaped);
  });

  it("a program that does not exist fails with exit 127, and its output log says why", async () => {
    const dir = dirs.make();
    const base = presetSpec(dir, "unused");
    const handle = await launchRun({ ...base, kind: "command", command: ["/nonexistent/program"] });
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: "failed", basis: "exit", exitCode: 127 });
    expect(outcome.detail).toBe("exit code 127 (command not found)");
    expect(readFileSync(base.outputPath, "utf8")).toContain("/nonexistent/program");
  });
});
