// The status page's run page against a run's own files: a run that asks a question and then
// puts a FIFO or a sparse 65 MiB file in its tasks file's place (or a FIFO in its journal's or
// its output log's) must still get a page with its stop and guide boxes (and its answer box
// when the journal can be read), saying what could not be read, and never freeze the daemon.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRecord, journalTimestamp } from "../../src/journal/codec.js";
import { AUTOLOOP_CRON, cleanEnv, cleanupTempDirs, tempDir } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";
import { type DaemonProcess, startDaemonProcess } from "./daemon-process.js";

afterEach(cleanupTempDirs);

const RUN = "@RUN@";

/** The question the run asks, as the harness journals it (the run id filled in by the run). */
const ASK = `${encodeRecord({
  shape: "system",
  run: RUN,
  iteration: "1",
  topic: "ask.pending",
  ts: journalTimestamp(),
  v: 1,
  fields: { question_id: "q-1", question: "Ship the release?" },
})}\n`;

/**
 * The hostile run: asks its question, then replaces a file of its own with what argv[2] says,
 * writes `ready`, and waits to be stopped (or gives up after a minute).
 */
const AGENT = `
const fs = require("fs"), cp = require("child_process");
const run = process.env.AUTOLOOP_CRON_RUN_ID;
const dir = ".autoloop/runs/" + run;
fs.mkdirSync(dir, { recursive: true });
fs.appendFileSync(".autoloop/journal.jsonl", ${JSON.stringify(ASK)}.replaceAll(${JSON.stringify(RUN)}, run));
const what = process.argv[2];
if (what === "fifo-tasks") cp.execFileSync("mkfifo", [dir + "/tasks.jsonl"]);
if (what === "big-tasks") { fs.writeFileSync(dir + "/tasks.jsonl", ""); fs.truncateSync(dir + "/tasks.jsonl", 65 << 20); }
if (what === "fifo-journal") { fs.rmSync(".autoloop/journal.jsonl"); cp.execFileSync("mkfifo", [".autoloop/journal.jsonl"]); }
if (what === "fifo-output") { const log = __dirname + "/state/output/" + run + ".log"; fs.rmSync(log); cp.execFileSync("mkfifo", [log]); }
fs.writeFileSync("ready", run);
setTimeout(() => {}, 60_000);
`;

function hostileSchedule(root: string, name: string): string {
  const project = join(root, name);
  mkdirSync(join(project, ".autoloop"), { recursive: true });
  const cmd = [process.execPath, join(root, "agent.cjs"), name];
  return `[[schedule]]\nname = "${name}"\ncron = "0 0 1 1 *"\nkind = "command"\ncommand = ${JSON.stringify(cmd)}\nproject_dir = ${JSON.stringify(project)}\n`;
}

async function cron(daemon: DaemonProcess, ...args: string[]) {
  return execa(process.execPath, [AUTOLOOP_CRON, ...args, "--config", daemon.config], {
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
  });
}

describe("/runs/<id> when the run's files cannot be read", () => {
  it("answers 200 with the answer, stop and guide boxes and says what could not be read", async () => {
    const root = tempDir("autoloop-hostile-page-");
    writeFileSync(join(root, "agent.cjs"), AGENT);
    const names = ["fifo-tasks", "big-tasks", "fifo-journal", "fifo-output"] as const;
    const daemon = await startDaemonProcess(
      root,
      names.map((n) => hostileSchedule(root, n)).join(""),
    );
    const runs: string[] = [];
    try {
      for (const name of names) {
        const fired = await cron(daemon, "fire", name);
        const runId = new RegExp(`${name}-\\S+`).exec(`${fired.stdout}\n${fired.stderr}`)?.[0];
        expect(runId, fired.stderr).toBeDefined();
        runs.push(runId!);
        await waitFor(
          async () => (await cron(daemon, "runs", "show", runId!)).stdout.includes("running"),
          `${name}: the run running`,
          20_000,
          100,
        );
        await waitFor(() => {
          try {
            return readFileSync(join(root, name, "ready"), "utf8") === runId;
          } catch {
            return false;
          }
        }, `${name}: the run's files in place`);
        const page = await daemon.get(`/runs/${runId}`, 5_000);
        expect(page.status, `${name}: ${page.body.slice(0, 300)}`).toBe(200);
        expect(page.body).toContain("Stop this run");
        expect(page.body).toContain("Guide this run");
        if (name === "fifo-journal") {
          expect(page.body).toMatch(/journal: could not be read \(not a regular file\)/);
        } else if (name === "fifo-output") {
          expect(page.body).toContain("Send the answer");
          expect(page.body).toMatch(/output: could not be read \(not a regular file\)/);
        } else {
          expect(page.body).toContain("Ship the release?");
          expect(page.body).toContain("Send the answer");
          expect(page.body).toMatch(
            name === "fifo-tasks"
              ? /tasks: could not be read \(not a regular file\)/
              : /tasks: could not be read \(over 64 MiB\)/,
          );
        }
      }
      expect((await daemon.get("/healthz")).status).toBe(200);
    } finally {
      for (const run of runs) await cron(daemon, "stop", run);
      await daemon.stop();
    }
  }, 90_000);
});
