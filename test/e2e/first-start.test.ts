// A daemon's first start on a state dir of its own, with runs that ended long ago in a
// project's journal (an earlier `npm start`, a reset `.autoloop-cron/`): no page for history,
// as `monitor --once` promises too; a run that ends after the start still pages.
import { appendFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRecord, type JournalRecord } from "../../src/journal/codec.js";
import { cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";
import { projectSchedule, startDaemonProcess } from "../hostile/daemon-process.js";

afterEach(cleanupTempDirs);

function stoppedRun(run: string, minutesAgo: number, project: string): string {
  const ts = (s: number) => new Date(Date.now() - minutesAgo * 60_000 + s * 1000).toISOString();
  const rec = (topic: string, s: number, fields: Record<string, string>, iteration?: string) =>
    `${encodeRecord({ shape: "system", run, iteration, topic, ts: ts(s), v: 1, fields } as JournalRecord)}\n`;
  return (
    rec("loop.start", 0, { objective: "x", preset: "demo", work_dir: project, trigger: "cron" }) +
    rec("loop.stop", 5, { reason: "max_iterations", completed_iterations: "3" }, "3")
  );
}

describe("the daemon's first start", () => {
  it("pages no run that ended before it, and pages one that ends after", async () => {
    const root = tempDir("autoloop-first-start-");
    const project = join(root, "project");
    mkdirSync(join(project, ".autoloop"), { recursive: true });
    const journal = join(project, ".autoloop/journal.jsonl");
    let history = "";
    for (let i = 0; i < 12; i++) history += stoppedRun(`run-old-${i}`, 60 + i, project);
    writeFileSync(journal, history);
    const daemon = await startDaemonProcess(root, projectSchedule("demo-stuck", project));
    try {
      const mail = join(root, "state", "mail");
      // The old runs are read (the page lists them), and nothing went out for them.
      await waitFor(
        async () => (await daemon.get("/")).body.includes("run-old-11"),
        "the old runs on the status page",
        20_000,
        250,
      );
      const mails = () =>
        existsSync(mail) ? readdirSync(mail).filter((f) => f.endsWith(".eml")) : [];
      expect(mails()).toEqual([]);
      appendFileSync(journal, stoppedRun("run-new", 0, project));
      const eml = await waitFor(
        () => mails().length > 0 && mails(),
        "a mail for the run that ended after the start",
        20_000,
        250,
      );
      expect(eml).toHaveLength(1);
    } finally {
      await daemon.stop();
    }
  }, 60_000);
});
