// What a run can write in its project's `.autoloop/` must not freeze or exhaust the daemon:
// a FIFO in a journal's or a tasks file's place, a sparse 1.5 GB tasks file, a 200 MB line
// with no newline. A real daemon process each time; a canary schedule firing every second
// shows it kept its promises, and its peak memory is read from /proc.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRecord, journalTimestamp } from "../../src/journal/codec.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";
import { assertStaysResponsive, projectSchedule, startDaemonProcess } from "./daemon-process.js";

afterEach(cleanupTempDirs);

const MiB = 1 << 20;

function project(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, ".autoloop"), { recursive: true });
  return dir;
}

/** The journal lines of a run whose gate refused completion three times (a gate alert's due). */
function gatedRun(projectDir: string, run: string): string {
  const line = (topic: string, iteration: string | undefined, fields: Record<string, string>) =>
    `${encodeRecord({ shape: "system", run, iteration, topic, ts: journalTimestamp(), v: 1, fields })}\n`;
  let text = line("loop.start", undefined, {
    objective: "x",
    preset: "autofix",
    trigger: "cron",
    work_dir: projectDir,
    project_dir: projectDir,
  });
  for (const i of ["1", "2", "3"])
    text += line("task.gate", i, { blocked_topic: "task.complete", open_tasks: "task-1" });
  return text;
}

describe("files a run leaves in .autoloop/", () => {
  it("a FIFO for a journal or a tasks file: refused, reported once, every schedule fires", async () => {
    const root = tempDir("autoloop-hostile-");
    const fifoJournal = project(root, "fifo-journal");
    execFileSync("mkfifo", [join(fifoJournal, ".autoloop/journal.jsonl")]);
    const fifoTasks = project(root, "fifo-tasks");
    const daemon = await startDaemonProcess(
      root,
      projectSchedule("fifo-journal", fifoJournal) + projectSchedule("fifo-tasks", fifoTasks),
    );
    try {
      mkdirSync(join(fifoTasks, ".autoloop/runs/run-gated"), { recursive: true });
      execFileSync("mkfifo", [join(fifoTasks, ".autoloop/runs/run-gated/tasks.jsonl")]);
      appendFileSync(join(fifoTasks, ".autoloop/journal.jsonl"), gatedRun(fifoTasks, "run-gated"));
      await assertStaysResponsive(daemon, 5_000);
      await waitFor(() => /not a regular file/.test(daemon.log()), "the refusal in the log");
      const refusals = daemon
        .log()
        .split("\n")
        .filter((l) => l.includes("fifo-journal/.autoloop/journal.jsonl is not a regular file"));
      expect(refusals).toHaveLength(1);
    } finally {
      await daemon.stop();
    }
  }, 60_000);

  it("a sparse 1.5 GB tasks file: not read, memory stays bounded", async () => {
    const root = tempDir("autoloop-hostile-");
    const sparse = project(root, "sparse");
    const daemon = await startDaemonProcess(root, projectSchedule("sparse", sparse));
    try {
      mkdirSync(join(sparse, ".autoloop/runs/run-big"), { recursive: true });
      const tasks = join(sparse, ".autoloop/runs/run-big/tasks.jsonl");
      writeFileSync(tasks, "");
      truncateSync(tasks, 1536 * MiB);
      appendFileSync(join(sparse, ".autoloop/journal.jsonl"), gatedRun(sparse, "run-big"));
      await assertStaysResponsive(daemon, 4_000);
      expect(daemon.peakRss()).toBeLessThan(400 * MiB);
    } finally {
      await daemon.stop();
    }
  }, 60_000);

  it("a 200 MB line with no newline: skipped as read, logged, the lines after it still read", async () => {
    const root = tempDir("autoloop-hostile-");
    const long = project(root, "long-line");
    const journal = join(long, ".autoloop/journal.jsonl");
    writeFileSync(journal, "");
    const daemon = await startDaemonProcess(root, projectSchedule("long-line", long));
    try {
      // Sparse zeros: 200 MB of a line that never ends, as far as a reader can tell.
      truncateSync(journal, 200 * MiB);
      await assertStaysResponsive(daemon, 5_000);
      expect(daemon.peakRss()).toBeLessThan(400 * MiB);
      await waitFor(
        () => /skipped a journal line over 16 MiB/.test(daemon.log()),
        "the skip logged",
      );
      // The line ends; a run after it is read (its gate alert shows on the page).
      appendFileSync(journal, `\n${gatedRun(long, "run-after")}`);
      await waitFor(
        async () => (await daemon.get("/", 10_000)).body.includes("run-after"),
        "the run after the long line on the status page",
        20_000,
        250,
      );
    } finally {
      await daemon.stop();
    }
  }, 60_000);
});
