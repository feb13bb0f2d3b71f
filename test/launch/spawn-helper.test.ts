// The daemon's spawn helper, as `autoloop-cron start` runs it (the built CLI's hidden
// `spawn-helper` command), and what the daemon's side does when a helper dies under it.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { findProcessByRunId, readProcessStartTime } from "../../src/scheduler/launch/identity.js";
import type { StartRequest } from "../../src/scheduler/launch/process-start.js";
import { SpawnHelper } from "../../src/scheduler/launch/spawn-helper.js";
import { isProcessAlive } from "../../src/util/process.js";
import { tempDirs, waitFor, waitForPidGone } from "../fixtures/fake-harness-helpers.js";
import { AUTOLOOP_CRON, cleanEnv } from "../helpers/cli.js";
import { commandSchedule, writeCronConfig } from "../helpers/daemon.js";

const dirs = tempDirs();
const helpers: SpawnHelper[] = [];
afterEach(() => {
  for (const h of helpers.splice(0)) h.close();
  dirs.cleanup();
});

const HELPER = [process.execPath, AUTOLOOP_CRON, "spawn-helper"];

function helperOf(argv = HELPER, minLifetimeMs?: number) {
  const warnings: string[] = [];
  const log = {
    info: () => {},
    warn: (_: unknown, msg: string) => warnings.push(msg),
  } as unknown as ConstructorParameters<typeof SpawnHelper>[1];
  const helper = new SpawnHelper(argv, log, minLifetimeMs);
  helpers.push(helper);
  return { helper, warnings };
}

/** A node program as a run: its env carries the run id, as the launcher's does. */
function request(dir: string, runId: string, script: string): StartRequest {
  return {
    runId,
    file: process.execPath,
    args: ["-e", script],
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", AUTOLOOP_CRON_RUN_ID: runId },
    outputPath: join(dir, `${runId}.log`),
  };
}

/** Field 4 of /proc/<pid>/stat: the parent. */
const parentOf = (pid: number) =>
  Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);

describe("SpawnHelper", () => {
  it("spawns runs as its children: pid, exit code and the output log", async () => {
    const { helper } = helperOf();
    helper.open();
    const dir = dirs.make();
    const started = await helper.start(
      request(dir, "r1", "console.log('hi'); setTimeout(() => process.exit(3), 300)"),
    );
    expect(started.pid).toBeGreaterThan(0);
    expect(parentOf(started.pid!)).toBe(helper.pid);
    expect(started.startTime).toBe(readProcessStartTime(started.pid!));
    expect(await started.exit).toEqual({ exitCode: 3 });
    expect(readFileSync(join(dir, "r1.log"), "utf8")).toBe("hi\n");
  });

  it("rejects when the log cannot be opened; a missing cwd fails without a pid", async () => {
    const { helper } = helperOf();
    const dir = dirs.make();
    writeFileSync(join(dir, "file"), "");
    const unopenable = { ...request(dir, "r2", ""), outputPath: join(dir, "file", "r2.log") };
    await expect(helper.start(unopenable)).rejects.toThrow(/ENOTDIR|EEXIST/);
    const missing = await helper.start({ ...request(dir, "r3", ""), cwd: join(dir, "gone") });
    expect(missing.pid).toBeUndefined();
    expect((await missing.exit).failure).toMatch(/cwd.*invalid|ENOENT/);
  });

  it("a helper that dies: its runs live on and are watched by pid; later runs spawn here", async () => {
    const { helper, warnings } = helperOf();
    const dir = dirs.make();
    const run = await helper.start(request(dir, "r4", "setTimeout(() => {}, 800)"));
    process.kill(helper.pid!, "SIGKILL");
    await waitFor("the helper gone", () => helper.pid === undefined);
    expect(isProcessAlive(run.pid!)).toBe(true);
    expect(await run.exit).toEqual({}); // ended, with nobody left to tell its code
    expect(warnings.join("\n")).toMatch(/spawned by the daemon itself/);
    const next = await helper.start(request(dir, "r5", "setTimeout(() => {}, 300)"));
    expect(parentOf(next.pid!)).toBe(process.pid);
    expect(await next.exit).toEqual({ exitCode: 0 });
  });

  it("a helper that lived long enough is replaced by a new one", async () => {
    const { helper } = helperOf(HELPER, 0);
    const first = helper.open().pid!;
    process.kill(first, "SIGKILL");
    await waitFor("the helper gone", () => helper.pid === undefined);
    const run = await helper.start(request(dirs.make(), "r6", "setTimeout(() => {}, 300)"));
    expect(helper.pid).toBeGreaterThan(0);
    expect(helper.pid).not.toBe(first);
    expect(parentOf(run.pid!)).toBe(helper.pid);
    await run.exit;
  });

  // Helpers that die half-way through a request (real processes speaking the protocol).
  const dying = (spawnFirst: boolean, openLog = false) => [
    process.execPath,
    "-e",
    `process.on("message", (m) => {
      if (${openLog}) require("fs").writeFileSync(m.outputPath, "");
      if (${spawnFirst}) require("child_process").spawn(m.file, m.args, { cwd: m.cwd, env: m.env, detached: true, stdio: "ignore" }).unref();
      setTimeout(() => process.exit(1), 200);
    });`,
  ];

  it("a request left unanswered whose run exists is found by its run id, not spawned twice", async () => {
    const { helper } = helperOf(dying(true));
    const dir = dirs.make();
    const run = await helper.start(
      request(dir, "r7", "console.log('once'); setTimeout(() => {}, 600)"),
    );
    expect(run.pid).toBe(findProcessByRunId("r7")?.pid);
    expect(parentOf(run.pid!)).not.toBe(process.pid);
    await run.exit;
    await waitForPidGone(run.pid!);
    expect(findProcessByRunId("r7")).toBeUndefined();
  });

  it("a request left unanswered whose run may have run (its log exists) is refused, not run again", async () => {
    const { helper } = helperOf(dying(true, true));
    const dir = dirs.make();
    await expect(helper.start(request(dir, "r9", "console.log('once')"))).rejects.toThrow(
      /may have run .*not started again/,
    );
  });

  it("a request left unanswered whose run never started is spawned here, once", async () => {
    const { helper } = helperOf(dying(false));
    const dir = dirs.make();
    const run = await helper.start(request(dir, "r8", "console.log('once')"));
    expect(await run.exit).toEqual({ exitCode: 0 });
    expect(readFileSync(join(dir, "r8.log"), "utf8")).toBe("once\n");
  });
});

describe("autoloop-cron start and its spawn helper", () => {
  it("spawns every run from the helper, not from the daemon; the helper ends with the daemon", async () => {
    const root = dirs.make();
    // The run records its wrapper's parent (the wrapper is the run's own `sh`), by rename: a
    // run fires every second, and a read between another's truncate and write saw "" (0).
    const script =
      "const fs = require('fs'); const ppid = (p) => fs.readFileSync('/proc/' + p + '/stat', 'utf8').split(') ')[1].split(' ')[1]; const tmp = 'parent.' + process.pid; fs.writeFileSync(tmp, ppid(process.ppid)); fs.renameSync(tmp, 'parent.txt');";
    writeCronConfig(root, commandSchedule("tick", script));
    const daemon = execa(
      process.execPath,
      [AUTOLOOP_CRON, "start", "--config", join(root, "autoloop-cron.toml")],
      { env: cleanEnv(), extendEnv: false, reject: false },
    );
    try {
      const parentFile = join(root, "work", "parent.txt");
      const parent = Number(
        await waitFor(
          "a run",
          () => (existsSync(parentFile) && readFileSync(parentFile, "utf8")) || undefined,
        ),
      );
      expect(parent).not.toBe(daemon.pid);
      expect(parentOf(parent)).toBe(daemon.pid);
      // Its process title, as `ps` shows it.
      expect(readFileSync(`/proc/${parent}/cmdline`, "utf8")).toContain(
        "autoloop-cron spawn-helper",
      );
      daemon.kill("SIGTERM");
      expect((await daemon).exitCode).toBe(0);
      await waitForPidGone(parent);
    } finally {
      daemon.kill("SIGKILL");
    }
  });
});
